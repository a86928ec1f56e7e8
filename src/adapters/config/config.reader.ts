import type {
  BudgetConfig,
  ChainflowConfig,
  NetworkConfig,
  RelayerConfig,
  ServerConfig,
  WorkflowConfig,
  EngineConfig,
  UnsetSecret,
  NotifyRule,
} from '../../application/config';
import {
  DEFAULT_ENGINE_CONFIG, DEFAULT_EVENT_POLL_MS, DEFAULT_FINALITY_DEPTH, DEFAULT_MAX_BLOCK_RANGE, DEFAULT_REPLACE_AFTER_MS,
} from '../../application/config';
import { readWorkflow } from './workflow.reader';
import { readChannels, readNotifyRule, type NotificationsReaderContext } from './notifications.reader';
import { readStorage } from './storage.reader';
import type { StepDefinition } from '../../domain/engine/workflow';
import { InvalidConfigError, InvalidInputError } from '../../domain/errors';
import { parseDuration } from '../../domain/duration';
import { parseAmount } from '../../domain/wei';
import { childPath, describeValue, REFERENCE_WORDS, schemaProblems } from './config.schema';
import { configValidator } from './config-validator';
import { compareOrder, configuredNames, documentOrder, isMap, type Raw } from './config-document';

/** Keys whose value is a secret wherever they appear; they take a reference, never a literal. */
const SECRET_KEYS = new Set([
  ...['headers', 'hmac', 'env', 'signer', 'token'],
  ...['password', 'authorization', 'api_key', 'private_key'],
]);
/** Secret-typed keys that may also hold a map whose values are all references. */
const MAP_SECRET_KEYS = new Set(['headers', 'env']);
/** Top-level sections whose keys are names chosen by the operator, not field names. */
const NAMED_SECTIONS = new Set(['secrets', 'networks', 'relayers', 'budgets', 'workflows', 'notifications']);

type Reference = { readonly env: string } | { readonly secret: string };

/** What a relayer's signer must resolve to: a secp256k1 private key, 32 bytes of hex (0x optional, as the chain takes it). */
const PRIVATE_KEY = /^(?:0x)?[0-9a-fA-F]{64}$/;

function isReference(value: unknown): value is Reference {
  if (!isMap(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === 'env' || keys[0] === 'secret') && typeof value[keys[0]] === 'string';
}

function entries(value: unknown): Array<[string, Raw]> {
  return isMap(value) ? Object.entries(value).filter((e): e is [string, Raw] => isMap(e[1])) : [];
}

/** One pass over a parsed config: collects every problem, then builds the config or throws them all. */
export class ConfigReader {
  private readonly problems = new Map<string, string>();
  /** Declared secret name → its environment variable. */
  private readonly declared = new Map<string, string>();
  private readonly referencedEnv = new Set<string>();
  /** Secret-typed settings whose variable is not set: nothing to redact, refused where a command needs them. */
  private readonly unset: UnsetSecret[] = [];

  constructor(
    private readonly raw: Raw,
    private readonly file: string,
    /** The embedded defaults (`defaultConfig(cwd)`), for the listen address and storage when not set. */
    private readonly defaults: ChainflowConfig,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  read(): ChainflowConfig {
    const version = this.raw.chainflow_version;
    if (version === undefined) this.problem('chainflow_version', 'is required (expected 1)');
    else if (version !== 1) {
      this.problem('chainflow_version', 'unsupported version (expected 1)');
    }
    const validate = configValidator();
    if (!validate(this.raw)) for (const p of schemaProblems(validate.errors ?? [])) this.problem(p.path, p.message);

    for (const [name, decl] of Object.entries(isMap(this.raw.secrets) ? this.raw.secrets : {})) {
      if (isReference(decl) && 'env' in decl) this.declared.set(name, decl.env);
    }
    this.walkTopLevel();

    const networks = this.networks();
    const relayers = this.relayers(networks);
    const budgets = this.budgets(relayers);
    const notices: NotificationsReaderContext = {
      problem: (at, message) => this.problem(at, message),
      resolve: (value, at) => this.resolveReference(value, at),
      variableOf: (ref) => this.variableOf(ref),
    };
    const notifications = readChannels(this.raw.notifications, notices);
    const notify = readNotifyRule(this.raw.notify, 'notify', notifications, notices);
    const config: ChainflowConfig = {
      source: this.file,
      server: this.server(),
      storage: readStorage(this.raw.storage, this.file, this.defaults.storage.url, notices),
      networks,
      relayers,
      budgets,
      workflows: this.workflows(budgets, relayers, networks, (raw, at) => readNotifyRule(raw, at, notifications, notices)),
      notifications,
      ...(notify ? { notify } : {}),
      engine: this.engine(),
      secretValues: this.secretValues(),
      unsetSecrets: this.unset,
    };
    if (this.problems.size > 0) {
      const lines = [...this.problems].map(([at, message]) => ({ order: documentOrder(this.raw, at), at, message }));
      lines.sort((a, b) => compareOrder(a.order, b.order));
      throw new InvalidConfigError(lines.map(({ at, message }) => `${at || '(top level)'}: ${message}`));
    }
    return config;
  }

  /**
   * One line per fault: the first problem at a path wins, and nothing is added under a path already
   * reported (the schema's line about a value says more than the checks that then trip over it).
   */
  private problem(at: string, message: string): void {
    for (const known of this.problems.keys()) {
      if (at === known || at.startsWith(`${known}.`) || at.startsWith(`${known}[`)) return;
    }
    this.problems.set(at, message);
  }

  private walkTopLevel(): void {
    for (const [key, value] of Object.entries(this.raw)) {
      if (NAMED_SECTIONS.has(key) && isMap(value)) {
        for (const [name, entry] of Object.entries(value)) this.walk(entry, childPath(key, name));
      } else {
        this.walk(value, key);
      }
    }
  }

  /** Notes every reference and refuses literals in secret-typed fields, at any depth. */
  private walk(value: unknown, at: string): void {
    if (isReference(value)) return this.noteReference(value, at);
    if (Array.isArray(value)) return value.forEach((item, i) => this.walk(item, childPath(at, i)));
    if (!isMap(value)) return;
    for (const [key, child] of Object.entries(value)) {
      const childAt = childPath(at, key);
      if (!SECRET_KEYS.has(key)) this.walk(child, childAt);
      else if (isReference(child)) this.noteReference(child, childAt);
      else if (MAP_SECRET_KEYS.has(key) && isMap(child)) {
        for (const [name, item] of Object.entries(child)) {
          if (isReference(item)) this.noteReference(item, childPath(childAt, name));
          else this.problem(childPath(childAt, name), `${REFERENCE_WORDS}, not ${describeValue(item)}`);
        }
      } else {
        const orMap = MAP_SECRET_KEYS.has(key) ? ' (or a map of references)' : '';
        this.problem(childAt, `${REFERENCE_WORDS}${orMap}, not ${describeValue(child)}`);
      }
    }
  }

  /** A reference to a secret that `secrets` does not declare; the name is not repeated (it may be the secret itself). */
  private undeclared(): string {
    const names = [...this.declared.keys()];
    return `names a secret not declared under secrets ${names.length ? `(declared: ${names.join(', ')})` : '(none declared)'}`;
  }

  private noteReference(ref: Reference, at: string): void {
    if ('env' in ref) this.referencedEnv.add(ref.env);
    else if (!this.declared.has(ref.secret)) this.problem(at, this.undeclared());
  }

  /**
   * Resolves a reference to its value. An unset (or empty) variable is no problem here: it is noted in
   * `unsetSecrets`, and a command that needs the setting refuses to run, naming it (requireSecrets).
   */
  private resolveReference(value: unknown, at: string): string | undefined {
    if (!isReference(value)) return undefined;
    let variable: string;
    if ('env' in value) variable = value.env;
    else {
      const declared = this.declared.get(value.secret);
      if (declared === undefined) {
        return void this.problem(at, this.undeclared());
      }
      variable = declared;
    }
    const resolved = this.env[variable];
    if (resolved === undefined || resolved === '') {
      this.unset.push({ at, variable, empty: resolved === '' });
      return undefined;
    }
    return resolved;
  }

  /** Where a reference's value comes from, in words: `environment variable OPS_KEY`. */
  private variableOf(ref: unknown): string {
    if (!isReference(ref)) return 'the value';
    return `environment variable ${'env' in ref ? ref.env : this.declared.get(ref.secret) ?? ref.secret}`;
  }

  private server(): ServerConfig {
    const raw = isMap(this.raw.server) ? this.raw.server : {};
    let { host, port } = this.defaults.server;
    if (typeof raw.listen === 'string') {
      const match = /^(?:\[([^\]]+)\]|([^:\s[\]]+)):([0-9]{1,5})$/.exec(raw.listen);
      const parsedPort = match ? Number(match[3]) : 0;
      if (match && parsedPort >= 1 && parsedPort <= 65535) [host, port] = [match[1] ?? match[2], parsedPort];
      else this.problem('server.listen', 'must be host:port with port 1..65535');
    }
    const auth = isMap(raw.auth) ? raw.auth : {};
    return {
      host,
      port,
      authToken: auth.token === undefined ? undefined : this.resolveReference(auth.token, 'server.auth.token'),
      healthPublic: typeof raw.health_public === 'boolean' ? raw.health_public : true,
      metricsPublic: typeof raw.metrics_public === 'boolean' ? raw.metrics_public : false,
      ...(typeof raw.public_url === 'string' ? { publicUrl: raw.public_url.replace(/\/+$/, '') } : {}),
    };
  }

  private networks(): Map<string, NetworkConfig> {
    const networks = new Map<string, NetworkConfig>();
    for (const [name, raw] of entries(this.raw.networks)) {
      const at = childPath('networks', name);
      const rpc = Array.isArray(raw.rpc) ? raw.rpc : [];
      const maxFeePerGasWei = this.amount(raw.max_fee_per_gas, childPath(at, 'max_fee_per_gas'));
      networks.set(name, {
        name,
        chainId: typeof raw.chain_id === 'number' ? raw.chain_id : 0,
        nativeSymbol: typeof raw.native_symbol === 'string' ? raw.native_symbol : 'ETH',
        // Providers whose variable is unset are left out (noted in unsetSecrets): the others are still tried.
        rpc: rpc.flatMap((ref, i) => this.resolveReference(ref, childPath(childPath(at, 'rpc'), i)) ?? []),
        ...(typeof raw.explorer === 'string' ? { explorer: raw.explorer } : {}),
        replaceAfterMs: this.duration(raw.replace_after, childPath(at, 'replace_after')) ?? DEFAULT_REPLACE_AFTER_MS,
        ...(maxFeePerGasWei !== undefined ? { maxFeePerGasWei } : {}),
        confirmations: typeof raw.confirmations === 'number' ? raw.confirmations : 1,
        pollIntervalMs: this.duration(raw.poll_interval, childPath(at, 'poll_interval')) ?? DEFAULT_EVENT_POLL_MS,
        maxBlockRange: typeof raw.max_block_range === 'number' ? raw.max_block_range : DEFAULT_MAX_BLOCK_RANGE,
        finalityDepth: typeof raw.finality_depth === 'number' ? raw.finality_depth : DEFAULT_FINALITY_DEPTH,
      });
    }
    return networks;
  }

  private relayers(networks: ReadonlyMap<string, NetworkConfig>): Map<string, RelayerConfig> {
    const relayers = new Map<string, RelayerConfig>();
    for (const [name, raw] of entries(this.raw.relayers)) {
      const at = childPath('relayers', name);
      const network = typeof raw.network === 'string' ? raw.network : '';
      if (network && !networks.has(network)) {
        this.problem(childPath(at, 'network'), `names no configured network${configuredNames(networks)}`);
      }
      const signer = raw.signer === undefined ? undefined : this.resolveReference(raw.signer, childPath(at, 'signer'));
      if (signer !== undefined && !PRIVATE_KEY.test(signer)) {
        // Named by its variable, never shown: a near-miss of a key is still most of a key.
        this.problem(childPath(at, 'signer'), `${this.variableOf(raw.signer)} does not hold a 32-byte hex private key (0x and 64 hex digits)`);
      }
      const lowBalanceWei = this.amount(raw.low_balance, childPath(at, 'low_balance'));
      relayers.set(name, {
        name,
        network,
        ...(signer ? { signer } : {}),
        ...(lowBalanceWei !== undefined ? { lowBalanceWei } : {}),
      });
    }
    return relayers;
  }

  private budgets(relayers: ReadonlyMap<string, RelayerConfig>): Map<string, BudgetConfig> {
    const budgets = new Map<string, BudgetConfig>();
    for (const [name, raw] of entries(this.raw.budgets)) {
      const at = childPath('budgets', name);
      const windowMs = this.duration(raw.window, childPath(at, 'window')) ?? 0;
      const maxGasSpendWei = this.amount(raw.max_gas_spend, childPath(at, 'max_gas_spend'));
      const maxNativeValueWei = this.amount(raw.max_native_value, childPath(at, 'max_native_value'));
      const maxTokenValue = this.baseUnits(raw.max_token_value, childPath(at, 'max_token_value'));
      if ([raw.max_gas_spend, raw.max_native_value, raw.max_token_value].every((cap) => cap === undefined)) {
        this.problem(at, 'sets no cap: give at least one of max_gas_spend, max_native_value, max_token_value');
      }
      const scoped = isMap(raw.scope) && Array.isArray(raw.scope.relayers) ? raw.scope.relayers.map(String) : undefined;
      scoped?.forEach((relayer, i) => {
        if (!relayers.has(relayer)) {
          const where = childPath(`${at}.scope.relayers`, i);
          this.problem(where, `names no configured relayer${configuredNames(relayers)}`);
        }
      });
      budgets.set(name, {
        name,
        windowMs,
        ...(maxGasSpendWei !== undefined ? { maxGasSpendWei } : {}),
        ...(maxNativeValueWei !== undefined ? { maxNativeValueWei } : {}),
        ...(maxTokenValue !== undefined ? { maxTokenValue } : {}),
        scope: scoped ? { relayers: scoped } : {},
      });
    }
    return budgets;
  }

  /**
   * A send's relayer and a read's network, when not templates, must be configured, the relayer with a signer. A
   * signer whose variable is unset is not refused here (every command loads the config, and `history` needs no
   * key): it is noted in unsetSecrets, and a command that signs refuses to start, naming the variable.
   */
  private checkChainSteps(workflow: string, steps: readonly StepDefinition[], relayers: ReadonlyMap<string, RelayerConfig>, networks: ReadonlyMap<string, NetworkConfig>): void {
    steps.forEach((step, i) => {
      const at = childPath(childPath(`workflows.${workflow}`, 'steps'), i);
      if (step.type === 'send' && typeof step.fields.relayer === 'string' && !step.fields.relayer.includes('${{')) {
        const relayer = relayers.get(step.fields.relayer);
        if (!relayer) this.problem(childPath(at, 'relayer'), `names no configured relayer '${step.fields.relayer}'${configuredNames(relayers)}`);
        else if (!relayer.signer && !this.unset.some((u) => u.at === `relayers.${relayer.name}.signer`)) {
          this.problem(childPath(at, 'relayer'), `relayer '${step.fields.relayer}' has no signer`);
        }
      }
      if (step.type === 'read' && typeof step.fields.network === 'string' && !step.fields.network.includes('${{') && !networks.has(step.fields.network)) {
        this.problem(childPath(at, 'network'), `names no configured network '${step.fields.network}'${configuredNames(networks)}`);
      }
    });
  }

  private workflows(
    budgets: ReadonlyMap<string, BudgetConfig>, relayers: ReadonlyMap<string, RelayerConfig>, networks: ReadonlyMap<string, NetworkConfig>,
    notifyRule: (raw: unknown, at: string) => NotifyRule | undefined,
  ): Map<string, WorkflowConfig> {
    const workflows = new Map<string, WorkflowConfig>();
    for (const [name, raw] of entries(this.raw.workflows)) {
      const names = Array.isArray(raw.budgets) ? raw.budgets.map(String) : [];
      names.forEach((budget, i) => {
        if (!budgets.has(budget)) {
          const where = childPath(`workflows.${name}.budgets`, i);
          this.problem(where, `names no configured budget${configuredNames(budgets)}`);
        }
      });
      const engine = readWorkflow(name, raw, {
        problem: (at, message) => this.problem(at, message),
        resolve: (value, at) => this.resolveReference(value, at),
        network: (network) => networks.get(network),
      });
      if (engine) this.checkChainSteps(name, engine.steps, relayers, networks);
      const notify = notifyRule(raw.notify, `workflows.${name}.notify`);
      workflows.set(name, { name, budgets: names, definition: raw, ...(engine ? { engine } : {}), ...(notify ? { notify } : {}) });
    }
    return workflows;
  }

  /** `engine:` (an extension): lease TTL, poll interval, concurrency; each optional. */
  private engine(): EngineConfig {
    const raw = isMap(this.raw.engine) ? this.raw.engine : {};
    const ms = (key: string, fallback: number): number => this.duration(raw[key], childPath('engine', key)) ?? fallback;
    return {
      leaseTtlMs: ms('lease_ttl', DEFAULT_ENGINE_CONFIG.leaseTtlMs),
      pollMs: ms('poll_interval', DEFAULT_ENGINE_CONFIG.pollMs),
      concurrency: typeof raw.concurrency === 'number' ? raw.concurrency : DEFAULT_ENGINE_CONFIG.concurrency,
    };
  }

  /** Values of every declared secret and every referenced environment variable that is set and non-empty. */
  private secretValues(): string[] {
    const variables = new Set([...this.declared.values(), ...this.referencedEnv]);
    const values = [...variables].map((variable) => this.env[variable]);
    return [...new Set(values.filter((v): v is string => typeof v === 'string' && v !== ''))];
  }

  private duration(value: unknown, at: string): number | undefined {
    if (typeof value !== 'string') return undefined;
    try {
      return parseDuration(value, at);
    } catch (error) {
      return void this.inputProblem(error);
    }
  }

  private amount(value: unknown, at: string): bigint | undefined {
    if (typeof value !== 'string' && typeof value !== 'number') return undefined;
    try {
      return parseAmount(value, at);
    } catch (error) {
      return void this.inputProblem(error);
    }
  }

  /** Token amounts are integers in the token's own base units: a safe integer or a digit string. */
  private baseUnits(value: unknown, at: string): bigint | undefined {
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
    if (typeof value === 'string' && /^[0-9]+$/.test(value)) return BigInt(value);
    if (value !== undefined) {
      this.problem(at, `must be a non-negative integer in the token's base units, not ${describeValue(value)}`);
    }
    return undefined;
  }

  private inputProblem(error: unknown): void {
    if (!(error instanceof InvalidInputError)) throw error;
    this.problem(error.field, error.reason);
  }
}
