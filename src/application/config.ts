import type { WorkflowDefinition } from '../domain/engine/workflow';
import type { NotificationType } from '../domain/notifications/notification';

/**
 * The loaded, validated configuration (CONTRACT section 2), in domain terms: amounts are bigint wei,
 * durations are milliseconds, secret references are resolved to their values.
 */
export interface NetworkConfig {
  readonly name: string;
  readonly chainId: number;
  /** Symbol of the native unit, used by human tables. Default `ETH`. */
  readonly nativeSymbol: string;
  /** Read providers (URLs), tried in order. Secret-typed: URLs may hold keys. */
  readonly rpc: readonly string[];
  /** Explorer base URL override (EIP-3091), if configured. */
  readonly explorer?: string;
  /** A send not mined this long after its last broadcast is signed again with fees raised 12.5%, in ms. Default 60 s. */
  readonly replaceAfterMs: number;
  /** Upper bound of what a send offers per gas (fee cap, or legacy gas price), in wei; none when absent. */
  readonly maxFeePerGasWei?: bigint;
  /** Blocks a send's receipt must have (its own included) before it settles. Default 1. */
  readonly confirmations: number;
  /** How often event triggers read the head, in ms. Default 2 s (DEFAULT_EVENT_POLL_MS; the reader always sets it). */
  readonly pollIntervalMs?: number;
  /** Blocks per eth_getLogs request; halved while a provider refuses a range. Default 2000. */
  readonly maxBlockRange?: number;
  /** Block hashes kept for the reorg check; a reorg deeper than this is an alarm, not a rollback. Default 64. */
  readonly finalityDepth?: number;
}

/** Defaults of a network's event settings (CONTRACT 8.6). */
export const DEFAULT_EVENT_POLL_MS = 2_000;
export const DEFAULT_MAX_BLOCK_RANGE = 2_000;
export const DEFAULT_FINALITY_DEPTH = 64;

export const DEFAULT_REPLACE_AFTER_MS = 60_000;

export interface RelayerConfig {
  readonly name: string;
  readonly network: string;
  /** Resolved signer credential. Never rendered. */
  readonly signer?: string;
  /** Low-balance threshold in wei. */
  readonly lowBalanceWei?: bigint;
}

export interface BudgetConfig {
  readonly name: string;
  /** Window length in milliseconds. */
  readonly windowMs: number;
  readonly maxGasSpendWei?: bigint;
  readonly maxNativeValueWei?: bigint;
  readonly maxTokenValue?: bigint;
  readonly scope: { readonly relayers?: readonly string[] };
}

export interface WorkflowConfig {
  readonly name: string;
  readonly budgets: readonly string[];
  /** The workflow's section as configured (trigger, steps, …). */
  readonly definition: Readonly<Record<string, unknown>>;
  /** What the engine runs, validated; absent for a workflow that defines no steps (known to the journal only). */
  readonly engine?: WorkflowDefinition;
  /** The workflow's own `notify` rule; absent: the top-level `notify` applies. */
  readonly notify?: NotifyRule;
}

/** `notify`: which events (`on`) go to which channels (`to`, names under `notifications`). */
export interface NotifyRule {
  readonly on: readonly NotificationType[];
  readonly to: readonly string[];
}

/**
 * A notification channel (`notifications.<name>`). Its credential (the webhook's `whsec_…` signing secret, the
 * Slack URL) is undefined while its variable is unset; a delivery to it then fails, naming the variable.
 */
export type NotificationChannelConfig =
  | { readonly name: string; readonly kind: 'webhook'; readonly url: string; readonly secret?: string }
  | { readonly name: string; readonly kind: 'slack'; readonly url?: string };

export interface ServerConfig {
  /** Host to bind. Default 127.0.0.1. */
  readonly host: string;
  /** Port to bind. Default 8080. */
  readonly port: number;
  /** Resolved value of `server.auth.token`; authentication is on when set. */
  readonly authToken?: string;
  /** `/live` and `/health` open without auth. Default true. */
  readonly healthPublic: boolean;
  /** `/metrics` open without auth. Default false. */
  readonly metricsPublic: boolean;
  /** Where operators reach the UI (`server.public_url`), for links in notifications; absent: http://host:port. */
  readonly publicUrl?: string;
}

/** Tuning of the engine (`engine:` in chainflow.yaml, an extension; every key optional). */
export interface EngineConfig {
  /** How long a run's lease lasts without renewal, in ms: a run left by a dead process is taken on after this. Default 15 s. */
  readonly leaseTtlMs: number;
  /** How often an idle engine looks for due runs and cron ticks, in ms. Default 500 ms. */
  readonly pollMs: number;
  /** Runs one engine process drives at once. Default 64. */
  readonly concurrency: number;
}

export interface StorageConfig {
  /** `sqlite:<absolute path>` or `postgres://…` (never with a password in it: see `password`). */
  readonly url: string;
  /**
   * PostgreSQL's password, resolved from `storage.password` (a secret reference). Absent: none given, or its
   * variable unset (then noted in `unsetSecrets` at `storage.password`, and every command that opens the storage
   * refuses to run, naming it). pg's own PGPASSWORD convention still applies when the config names no password.
   */
  readonly password?: string;
}

export interface ChainflowConfig {
  /** Absolute path of the file it was loaded from; undefined on embedded defaults. */
  readonly source?: string;
  readonly server: ServerConfig;
  readonly storage: StorageConfig;
  readonly networks: ReadonlyMap<string, NetworkConfig>;
  readonly relayers: ReadonlyMap<string, RelayerConfig>;
  readonly budgets: ReadonlyMap<string, BudgetConfig>;
  readonly workflows: ReadonlyMap<string, WorkflowConfig>;
  /** Notification channels by name (`notifications:`); absent: none. */
  readonly notifications?: ReadonlyMap<string, NotificationChannelConfig>;
  /** The top-level `notify` rule: the default of workflows that set none. */
  readonly notify?: NotifyRule;
  /** Engine tuning; DEFAULT_ENGINE_CONFIG when absent. */
  readonly engine?: EngineConfig;
  /**
   * Every value redaction must hide: declared secrets, secret-typed fields, and every value of an
   * environment variable that the raw config references anywhere.
   */
  readonly secretValues: readonly string[];
  /**
   * Secret-typed settings whose environment variable is not set (or empty). Not an error when the config loads:
   * a command needs only the settings it uses (see `requireSecrets`); there is nothing to redact for them.
   * Absent: none.
   */
  readonly unsetSecrets?: readonly UnsetSecret[];
}

/** A secret-typed setting (`at`, a config path) whose environment variable is not set or empty. */
export interface UnsetSecret {
  readonly at: string;
  readonly variable: string;
  readonly empty: boolean;
}
export const ChainflowConfig = Symbol('ChainflowConfig');

export const DEFAULT_ENGINE_CONFIG: EngineConfig = { leaseTtlMs: 15_000, pollMs: 500, concurrency: 64 };
