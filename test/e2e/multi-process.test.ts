/**
 * Several processes on one database (issue #29 part 4, CONTRACT 10 with 8.2, 8.5 and 8.7 across processes): two
 * `chainflow start` and one `chainflow worker` on one SQLite file or one PostgreSQL database, one anvil. Runs of a
 * workflow mix (an http_call to a local receiver that records each call's Idempotency-Key, a delay, a send of value
 * from one relayer, an http_call that fails once and is retried) are started through both servers' APIs and webhooks
 * while processes are killed -9 at random moments (and started again) and one is frozen (SIGSTOP) past its lease,
 * then thawed. Then: every run ended once, no step that finished ran again, each http_call attempt reached the
 * receiver at most once and an attempt left unfinished is explained by a fault, no send paid twice, and the spend
 * ledger equals the chain's receipts to the wei. The chaos is seeded (MULTI_SEED repeats one).
 */
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { Knex } from 'knex';
import { openDatabase } from '../../src/adapters/storage';
import { prng } from '../../src/application/journal/sample-journal';
import { signPayload } from '../../src/domain/engine/webhook-signature';
import { ANVIL_ACCOUNTS, startAnvil, type Anvil } from '../support/anvil';
import { assertBuilt } from '../support/cli';
import { engineClient, type Json } from '../support/engine-client';
import { Fleet, type Fault } from '../support/fleet';
import type { FreshPostgres } from '../support/postgres';
import { eventually } from '../support/process';
import { makeTempDir, removeTempDir } from '../support/server';
import { E2E_STORAGES, storageSection } from '../support/stores';

const HOOK_SECRET = 'hook-secret-29m4';
const API_TOKEN = 'api-token-29m4-7f3a';
const OPS = ANVIL_ACCOUNTS[6]!;
const RECIPIENT = '0x00000000000000000000000000000000000c0029';
const LEASE_TTL_MS = 2_000;
/** How long the chaos lasts; runs are started all through it. */
const CHAOS_MS = 20_000;
const RUNS = 36;
/** Every third run pays (a send); the others only call. */
const PAYS = (i: number): boolean => i % 3 === 0;
const AMOUNT = (i: number): bigint => 1_000_000n + BigInt(i);
/** Step runs of the http_call steps (`<run_id>.quote`, `<run_id>.notify`). */
const HTTP_STEP = /\.(quote|notify)$/;

function config(receiver: string, storage: string): string {
  return `chainflow_version: 1
${storage}secrets:
  hook: { env: HOOK_SECRET }
  api_token: { env: API_TOKEN }
server:
  auth:
    token: { secret: api_token }
engine:
  lease_ttl: ${LEASE_TTL_MS / 1000}s
  poll_interval: 1s
networks:
  anvil: { chain_id: 31337, rpc: [ { env: RPC } ] }
relayers:
  ops: { network: anvil, signer: { env: OPS_KEY } }
workflows:
  calls:
    trigger: { kind: webhook, auth: { hmac: { secret: hook } } }
    steps:
      - { id: quote, type: http_call, method: POST, url: "${receiver}/quote", body: { n: "\${{ trigger.payload.n }}" } }
      - { id: nap, type: delay, duration: 1s }
      - { id: notify, type: http_call, url: "${receiver}/flaky", retry: { attempts: 5, backoff: 1s } }
  payout:
    trigger: { kind: webhook, auth: { hmac: { secret: hook } } }
    steps:
      - { id: quote, type: http_call, method: POST, url: "${receiver}/quote", body: { n: "\${{ trigger.payload.n }}" } }
      - { id: pay, type: send, relayer: ops, to: "${RECIPIENT}", value: "\${{ trigger.payload.amount }}" }
      - { id: notify, type: http_call, url: "${receiver}/flaky", retry: { attempts: 5, backoff: 1s } }
`;
}

interface Call { readonly path: string; readonly key: string; readonly at: number }

/**
 * The far end of the http_calls: records every call with its Idempotency-Key; `/quote` answers after 600 ms (so
 * processes often die or freeze mid-step), `/flaky` answers 503 to the first call of each step run, then 200.
 */
async function startReceiver(): Promise<{ url: string; calls: Call[]; close(): Promise<void> }> {
  const calls: Call[] = [];
  const seen = new Set<string>();
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const key = String(req.headers['idempotency-key'] ?? '');
      const p = (req.url ?? '/').split('?')[0]!;
      calls.push({ path: p, key, at: Date.now() });
      const stepRun = key.slice(0, key.lastIndexOf(':'));
      const first = p === '/flaky' && !seen.has(stepRun);
      seen.add(stepRun);
      setTimeout(() => {
        res.writeHead(first ? 503 : 200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      }, p === '/quote' ? 600 : 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A process frozen at `at` while it held the leases of `held`, thawed at `thawedAt`. */
interface Freeze { readonly member: string; readonly at: number; readonly thawedAt: number; readonly held: readonly string[] }

interface Attempt { readonly attempt: number; readonly startedAt: number; finished?: string }

/**
 * One run's journal, folded: its run.finished statuses; per step run, its attempts in order; and what no run may
 * hold: an attempt started after its step succeeded, an attempt finished twice.
 */
interface RunJournal { readonly finishes: string[]; readonly steps: Map<string, Attempt[]>; readonly violations: string[] }

function fold(rows: ReadonlyArray<{ type: string; body: Json }>): RunJournal {
  const j: RunJournal = { finishes: [], steps: new Map(), violations: [] };
  for (const { type, body } of rows) {
    if (type === 'run.finished') j.finishes.push(body.status);
    if (type === 'step.started') {
      const attempts = j.steps.get(body.step_run_id) ?? [];
      if (attempts.some((a) => a.finished === 'succeeded')) j.violations.push(`${body.step_run_id}:${body.attempt} started after the step succeeded`);
      attempts.push({ attempt: body.attempt, startedAt: Date.parse(body.at) });
      j.steps.set(body.step_run_id, attempts);
    }
    if (type === 'step.finished' && body.status !== 'skipped') {
      const last = j.steps.get(body.step_run_id)?.at(-1);
      if (last?.finished) j.violations.push(`${body.step_run_id}:${last.attempt} finished twice`);
      if (last) last.finished = body.status;
    }
  }
  return j;
}

describe.each(E2E_STORAGES)('several processes on one database, on %s', (_name, freshStorage) => {
  let database: FreshPostgres | undefined;
  let anvil: Anvil;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let dir: string;
  let fleet: Fleet;
  let storageUrl: string;
  let balanceBefore: bigint;

  beforeAll(async () => {
    assertBuilt();
    anvil = await startAnvil();
    receiver = await startReceiver();
    dir = makeTempDir('chainflow-multi-');
    database = await freshStorage();
    storageUrl = database?.url ?? `sqlite:${path.join(dir, '.chainflow', 'chainflow.db')}`;
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), config(receiver.url, storageSection(database)));
    balanceBefore = await anvil.balance(OPS.address);
    fleet = new Fleet(dir, { HOOK_SECRET, API_TOKEN, RPC: anvil.url, OPS_KEY: OPS.privateKey });
    // One at a time: the first start migrates the database.
    await fleet.add('start-a', 'start');
    await fleet.add('start-b', 'start');
    await fleet.add('worker', 'worker');
  }, 60_000);
  afterAll(async () => {
    await fleet?.stopAll();
    await receiver?.close();
    await anvil?.stop();
    await database?.drop();
    if (dir) removeTempDir(dir);
  });

  /**
   * Starts run `i` through server `i % 2` first (odd runs by webhook, even ones over the API with an Idempotency-Key),
   * and, when that one is down, frozen or its answer lost, repeats the same delivery on the other: it starts one run.
   */
  async function startRun(i: number): Promise<string> {
    const workflow = PAYS(i) ? 'payout' : 'calls';
    const payload = { n: i, amount: AMOUNT(i).toString() };
    const t = Math.floor(Date.now() / 1000);
    const raw = JSON.stringify(payload);
    const urls = fleet.serverUrls();
    for (let attempt = 0; attempt < 40; attempt++) {
      const base = urls[(i + attempt) % urls.length]!;
      const request: { url: string; body: string; headers: Record<string, string> } = i % 2 === 1
        ? { url: `${base}/hooks/${workflow}`, body: raw, headers: { 'x-chainflow-signature': `t=${t},v1=${signPayload(HOOK_SECRET, t, raw)}` } }
        : { url: `${base}/api/workflows/${workflow}/runs`, body: JSON.stringify({ input: payload }), headers: { authorization: `Bearer ${API_TOKEN}`, 'idempotency-key': `multi-${i}` } };
      try {
        const res = await fetch(request.url, { method: 'POST', body: request.body, headers: { 'content-type': 'application/json', ...request.headers }, signal: AbortSignal.timeout(3_000) });
        if (res.status === 202 || res.status === 200) return ((await res.json()) as { run_id: string }).run_id;
      } catch {
        // down, frozen, or killed while answering: the same delivery again, elsewhere
      }
      await sleep(250);
    }
    throw new Error(`run ${i} could not be started`);
  }

  /**
   * No kill from a freeze until 2.5 s after its thaw: whatever the thawed process then does is its own, and the
   * process that took its runs over is alive to finish them (a kill there would hide a write the fence let through).
   */
  let quietUntil = 0;

  /** kill -9 of a random awake process every 0.8 to 2.4 s, started again 0.2 to 1 s later; one at a time. */
  async function killAtRandom(rng: () => number, until: number): Promise<void> {
    while (Date.now() < until) {
      await sleep(800 + rng() * 1_600);
      if (Date.now() < quietUntil) continue;
      const awake = fleet.awake();
      const victim = awake[Math.floor(rng() * awake.length)];
      if (!victim) continue;
      await fleet.kill(victim);
      await sleep(200 + rng() * 800);
      await fleet.restart(victim);
    }
  }

  /**
   * One process frozen past its lease at a random moment: the first awake one seen holding a run's lease (driving
   * it, mid-step), for the lease's TTL and 1.5 s more, then thawed.
   */
  async function freezeOnce(rng: () => number, db: Knex): Promise<Freeze> {
    await sleep(3_000 + rng() * 6_000);
    const holding = await eventually(async () => {
      const owners = (await db('engine_runs').whereNotNull('owner').pluck('owner')) as string[];
      const pids = new Set(owners.map((o) => o.split(':').at(-2)));
      return fleet.awake().find((name) => pids.has(String(fleet.pid(name)))) ?? undefined;
    }, 8_000, 'a process holding a lease');
    quietUntil = Number.POSITIVE_INFINITY;
    const at = Date.now();
    fleet.freeze(holding);
    const held = (await db('engine_runs').where('owner', 'like', `%:${fleet.pid(holding)}:%`).pluck('run_id')) as string[];
    await sleep(LEASE_TTL_MS + 1_500);
    fleet.thaw(holding);
    quietUntil = Date.now() + 2_500;
    return { member: holding, at, thawedAt: Date.now(), held };
  }

  async function journalOf(db: Knex, runIds: readonly string[]): Promise<Map<string, RunJournal>> {
    const rows = (await db('events').select('stream', 'type', 'body').whereIn('stream', [...runIds]).orderBy([{ column: 'stream' }, { column: 'seq' }])) as { stream: string; type: string; body: unknown }[];
    const byRun = new Map<string, Array<{ type: string; body: Json }>>();
    for (const r of rows) {
      const list = byRun.get(r.stream) ?? [];
      list.push({ type: r.type, body: (typeof r.body === 'string' ? JSON.parse(r.body) : r.body) as Json });
      byRun.set(r.stream, list);
    }
    return new Map(runIds.map((id) => [id, fold(byRun.get(id) ?? [])]));
  }

  it('kill -9 at random and a freeze past the lease: every run ends once, no finished step runs again, no send pays twice, the ledger equals the chain', async () => {
    const seed = Number(process.env.MULTI_SEED ?? Date.now() % 1_000_000);
    const rng = prng(seed); // one seed, one sequence of kills
    const until = Date.now() + CHAOS_MS;
    const started = new Map<number, string>();
    const starting = (async () => {
      for (let i = 0; i < RUNS; i++) {
        started.set(i, await startRun(i));
        await sleep((CHAOS_MS - 3_000) / RUNS);
      }
    })();
    const watcher = await openDatabase(storageUrl);
    let frozen: Freeze;
    try {
      [frozen] = await Promise.all([freezeOnce(rng, watcher), starting, killAtRandom(rng, until)]);
    } finally {
      await watcher.destroy();
    }
    const faults: Fault[] = [...fleet.faults];
    const context = `seed ${seed}, faults ${JSON.stringify(faults.map((f) => `${f.kind} ${f.member} ${f.at}`))}`;
    expect(faults.filter((f) => f.kind === 'kill').length).toBeGreaterThanOrEqual(2);
    expect(faults.filter((f) => f.kind === 'freeze')).toHaveLength(1);

    // Each start gave its own run, and nothing else started one.
    const runIds = [...started.values()];
    expect(new Set(runIds).size).toBe(RUNS);
    const client = engineClient(() => fleet.serverUrls()[0]!, { token: API_TOKEN });
    const items = new Map<string, Json>();
    for (const id of runIds) items.set(id, await client.ended(id, 45_000));
    const listed = (await client.get('/api/history/runs?limit=200')).items as Json[];
    expect(listed.map((r) => r.run_id).sort()).toEqual([...runIds].sort());

    const db = await openDatabase(storageUrl);
    let journal: Map<string, RunJournal>;
    try {
      journal = await journalOf(db, runIds);
    } finally {
      await db.destroy();
    }

    // Every run ended exactly once: succeeded, or dead-lettered because its step was running at two deaths in a row.
    for (const [id, j] of journal) {
      const item = items.get(id)!;
      expect({ id, finishes: j.finishes, context }).toEqual({ id, finishes: [item.status], context });
      if (item.status !== 'succeeded') expect({ id, status: item.status, error: item.error_kind, context }).toEqual({ id, status: 'dead_lettered', error: 'engine_crash', context });
      // No step that finished ran again.
      expect({ id, violations: j.violations, context }).toEqual({ id, violations: [], context });
    }

    // The frozen process: a run whose http_call it was making when it froze, and which another process took over
    // while it slept (the next attempt started then), had the frozen process's next write (that call's end) refused,
    // logged once it woke, so it drove nothing more of that run: the run taken over, or already ended by the other
    // process before that write (refused as gone from the schedule). (A send step may end without a write of its own.)
    const takenOver = frozen.held.filter((id) => [...journal.get(id)!.steps.entries()].some(([srid, attempts]) => HTTP_STEP.test(srid) && attempts.some((a, n) => {
      const next = attempts[n + 1];
      return !a.finished && a.startedAt <= frozen.at && next !== undefined && next.startedAt > frozen.at && next.startedAt < frozen.thawedAt;
    })));
    const lost = fleet.log(frozen.member).split('\n').filter((l) => l.includes('lease lost')).map((l) => JSON.parse(l).run_id as string);
    expect({ notRefused: takenOver.filter((id) => !lost.includes(id)), context }).toEqual({ notRefused: [], context });

    // The receiver: each key (step run and attempt) called at most once, only for an attempt the journal started;
    // a finished attempt was called once; an attempt left unfinished (at-least-once) lies across a fault.
    const keys = receiver.calls.map((c) => c.key);
    expect(keys.filter((k, n) => keys.indexOf(k) !== n)).toEqual([]);
    const calledKeys = new Set(keys);
    const journaled = new Set<string>();
    const unexplained: string[] = [];
    for (const j of journal.values()) {
      for (const [srid, attempts] of j.steps) {
        if (!HTTP_STEP.test(srid)) continue;
        attempts.forEach((a, n) => {
          const key = `${srid}:${a.attempt}`;
          journaled.add(key);
          if (a.finished) {
            if (!calledKeys.has(key)) unexplained.push(`${key} finished without a call`);
            return;
          }
          const next = attempts[n + 1]?.startedAt ?? Number.POSITIVE_INFINITY;
          if (!faults.some((f) => f.at >= a.startedAt - 50 && f.at <= next)) unexplained.push(`${key} unfinished with no fault during it`);
        });
      }
    }
    expect({ unexplained, context }).toEqual({ unexplained: [], context });
    expect(keys.filter((k) => !journaled.has(k))).toEqual([]);

    // Sends: one per payout that got to pay, each settled once, each on chain once at consecutive nonces.
    const sends = (await client.get('/api/history/txs?workflow=payout&limit=200')).items as Json[];
    const paid = runIds.filter((id) => items.get(id)!.workflow === 'payout' && items.get(id)!.status === 'succeeded');
    expect(sends.filter((s) => paid.includes(s.run_id)).map((s) => s.run_id).sort()).toEqual([...paid].sort());
    expect(new Set(sends.map((s) => s.run_id)).size).toBe(sends.length);
    for (const s of sends) expect(s).toMatchObject({ status: 'settled', outcome: 'confirmed', relayer: 'ops' });
    const head = Number(await anvil.rpc<string>('eth_blockNumber'));
    const mined: Json[] = [];
    for (let b = 1; b <= head; b++) {
      const block = await anvil.rpc<Json>('eth_getBlockByNumber', [`0x${b.toString(16)}`, true]);
      mined.push(...(block.transactions as Json[]).filter((tx) => tx.from.toLowerCase() === OPS.address.toLowerCase()));
    }
    expect(mined.map((tx) => Number(tx.nonce))).toEqual(mined.map((_tx, n) => n));
    const sendHashes = new Set(sends.map((s) => s.tx_hash as string));
    // What else the relayer mined can only be a gap-filler: a zero-value transfer to itself (CONTRACT 8.7).
    const fillers = mined.filter((tx) => !sendHashes.has(tx.hash));
    for (const tx of fillers) expect({ to: tx.to.toLowerCase(), value: BigInt(tx.value) }).toEqual({ to: OPS.address.toLowerCase(), value: 0n });
    expect(mined.length - fillers.length).toBe(sends.length);
    const values = mined.filter((tx) => sendHashes.has(tx.hash)).map((tx) => BigInt(tx.value).toString()).sort();
    expect(values).toEqual(sends.map((s) => s.value_wei as string).sort());
    expect(new Set(values).size).toBe(values.length);

    // The ledger equals the chain's receipts to the wei (read once every receipt owed is in).
    const spend = await eventually(async () => {
      const body = (await client.get('/api/spend?relayer=ops&limit=500'));
      return body.entries.length === sends.length ? body : undefined;
    }, 20_000, 'every send in the ledger');
    let gasOfFillers = 0n;
    for (const tx of mined) {
      const receipt = await anvil.rpc<Json>('eth_getTransactionReceipt', [tx.hash]);
      const gas = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
      const entry = spend.entries.find((e: Json) => e.tx_hash === tx.hash);
      if (!sendHashes.has(tx.hash)) {
        gasOfFillers += gas;
        continue;
      }
      expect({ hash: tx.hash, gas: entry?.gas_spend_wei, value: entry?.value_wei }).toEqual({ hash: tx.hash, gas: gas.toString(), value: BigInt(tx.value).toString() });
    }
    const ledgerTotal = BigInt(spend.summary.total.gas_spend_wei) + BigInt(spend.summary.total.value_wei);
    expect(balanceBefore - (await anvil.balance(OPS.address))).toBe(ledgerTotal + gasOfFillers);
  }, 115_000);
});
