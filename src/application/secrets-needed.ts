import { SecretMissingError } from '../domain/errors';
import type { ChainflowConfig, UnsetSecret } from './config';

/**
 * Which secret-typed settings a command needs (issue #13: a command needs only what it uses). An unset variable
 * that a command does not use is no error; one that it uses stops it, named in one line.
 */

/** The unset settings at or under any of `paths` (config paths such as `server` or `workflows.payouts`). */
export function unsetUnder(config: ChainflowConfig, paths: readonly string[]): UnsetSecret[] {
  const under = (at: string): boolean => paths.some((p) => at === p || at.startsWith(`${p}.`) || at.startsWith(`${p}[`));
  return (config.unsetSecrets ?? []).filter((s) => under(s.at));
}

/** @throws SecretMissingError naming every unset setting under `paths`, and what needs them. */
export function requireSecrets(config: ChainflowConfig, paths: readonly string[], purpose: string): void {
  const missing = unsetUnder(config, paths);
  if (missing.length) throw new SecretMissingError(missing, purpose);
}

/**
 * The server's own settings: `server.*` (the API token) and the webhook triggers' HMAC keys (the server answers
 * `/hooks/*` whether or not it runs the engine).
 */
export function serverSecretPaths(config: ChainflowConfig): string[] {
  const hooks = [...config.workflows.values()].filter((w) => w.engine?.trigger.kind === 'webhook').map((w) => `workflows.${w.name}.trigger`);
  return ['server', ...hooks];
}

/** What an engine may use while it runs any workflow: every workflow, relayer and network, and the channels it notifies. */
export const ENGINE_SECRET_PATHS: readonly string[] = ['workflows', 'relayers', 'networks', 'notifications'];

/**
 * What one workflow's run may use: its own settings (headers, HMAC), the relayers its sends name (all of them when
 * a send names its relayer by an expression) with their networks, and the networks its reads and event trigger name.
 */
export function workflowSecretPaths(config: ChainflowConfig, workflow: string): string[] {
  const definition = config.workflows.get(workflow)?.engine;
  if (!definition) return [`workflows.${workflow}`];
  const relayers = new Set<string>();
  const networks = new Set<string>();
  if (definition.trigger.kind === 'event') networks.add(definition.trigger.network);
  for (const step of [...definition.steps, ...definition.onReorg]) {
    if (step.type !== 'send' && step.type !== 'read') continue;
    const relayer = step.fields.relayer;
    if (typeof relayer === 'string' && !relayer.includes('${{')) relayers.add(relayer);
    else if (relayer !== undefined) for (const name of config.relayers.keys()) relayers.add(name);
    if (typeof step.fields.network === 'string') networks.add(step.fields.network);
  }
  for (const name of relayers) {
    const network = config.relayers.get(name)?.network;
    if (network) networks.add(network);
  }
  return [`workflows.${workflow}`, ...[...relayers].map((r) => `relayers.${r}`), ...[...networks].map((n) => `networks.${n}`)];
}
