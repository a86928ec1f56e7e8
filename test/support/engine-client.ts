/**
 * Test support: the calls end-to-end tests make of a running `chainflow start` (its API under a bearer, its signed
 * webhooks, waiting for a run to end) and of the chain, written once. `baseUrl` is asked at each call: a test that
 * restarts the process gets the new one.
 */
import { signPayload } from '../../src/domain/engine/webhook-signature';
import type { Anvil } from './anvil';
import { eventually } from './process';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface Json { [key: string]: any }

/** Statuses a run ends with. */
export const ENDED = ['succeeded', 'failed', 'skipped', 'dead_lettered', 'cancelled'];

export interface EngineClient {
  /** One API call under the bearer: its status and its JSON body (`{}` when empty). */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }>;
  /** A GET's JSON body. */
  get(path: string): Promise<Json>;
  /** Posts `body` (a raw JSON text is sent as it is) to `/hooks/<workflow>`, signed; expects 202 and gives the run id. */
  hook(workflow: string, body: unknown): Promise<string>;
  /** The run item, or undefined. */
  run(runId: string): Promise<Json | undefined>;
  /** The run item once it has ended (bounded wait). */
  ended(runId: string, timeoutMs?: number): Promise<Json>;
  /** The send attempts of a run. */
  sendsOf(runId: string): Promise<Json[]>;
}

export function engineClient(baseUrl: () => string, options: { token: string; hookSecret?: string }): EngineClient {
  const api: EngineClient['api'] = async (method, path, body) => {
    const res = await fetch(`${baseUrl()}${path}`, {
      method, headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text ? { text } : {} };
  };
  const get = async (path: string): Promise<Json> => (await api('GET', path)).body;
  const run = async (runId: string): Promise<Json | undefined> => (await get(`/api/history/runs?run_id=${runId}`)).items?.[0];
  return {
    api,
    get,
    run,
    hook: async (workflow, body) => {
      if (!options.hookSecret) throw new Error('engineClient: no hook secret given');
      const raw = typeof body === 'string' ? body : JSON.stringify(body);
      const t = Math.floor(Date.now() / 1000);
      const res = await fetch(`${baseUrl()}/hooks/${workflow}`, {
        method: 'POST', body: raw, headers: { 'content-type': 'application/json', 'x-chainflow-signature': `t=${t},v1=${signPayload(options.hookSecret, t, raw)}` },
      });
      if (res.status !== 202) throw new Error(`webhook ${workflow}: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { run_id: string }).run_id;
    },
    ended: (runId, timeoutMs = 30_000) => eventually(async () => {
      const r = await run(runId);
      return r && ENDED.includes(r.status) ? r : undefined;
    }, timeoutMs, `run ${runId} to end`),
    sendsOf: async (runId) => (await get(`/api/history/txs?run_id=${runId}`)).items,
  };
}

/** Transactions an address has had mined. */
export async function minedNonce(anvil: Anvil, address: string): Promise<number> {
  return Number(await anvil.rpc<string>('eth_getTransactionCount', [address, 'latest']));
}
