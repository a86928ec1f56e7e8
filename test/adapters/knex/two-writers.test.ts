/**
 * Two writers on one database, as two processes sharing it (CONTRACT 10): what they decide together is decided in
 * the database, so neither loses nor doubles what the other wrote. Each writer has a knex instance (a pool) of its
 * own; on PostgreSQL their transactions interleave, on SQLite they take turns at the write lock.
 */
import type { Knex } from 'knex';
import { KnexEngineStore } from '../../../src/adapters/knex/knex-engine.store';
import { KnexJournalWriter } from '../../../src/adapters/knex/knex-journal.writer';
import { KnexRunRepository } from '../../../src/adapters/knex/knex-run.repository';
import { KnexSendStore } from '../../../src/adapters/knex/knex-send.store';
import { KnexTopupAudit } from '../../../src/adapters/knex/knex-topup-audit';
import { KnexWorkflowStates } from '../../../src/adapters/knex/knex-workflow-states';
import { KnexNotificationOutbox } from '../../../src/adapters/knex/knex-notification-outbox';
import { KnexSpendLedger } from '../../../src/adapters/knex/knex-spend-ledger';
import type { JournalEvent } from '../../../src/domain/journal/journal-event';
import { aNotification } from '../../contract/notification-outbox.contract';
import { anEntry, landedSend } from '../../contract/spend.contract';
import { aTopup } from '../../contract/topup-audit.contract';
import { aRun, aSession, HOUR, iso, T0 } from '../../mothers/journal-events';
import { freshPostgresStore, KNEX_STORES, type FreshStore } from '../../support/stores';

/** Each writer's appends one after the other, both writers at once. */
async function together(a: () => Promise<unknown>[], b: () => Promise<unknown>[]): Promise<void> {
  await Promise.all([...a(), ...b()]);
}

describe.each(KNEX_STORES)('two writers on one %s database', (_name, freshStore) => {
  let store: FreshStore;
  let first: Knex;
  let second: Knex;
  beforeEach(async () => {
    store = await freshStore();
    first = await store.open();
    second = await store.open();
  });
  afterEach(() => store.close());

  it('appends to one run from both: every event stored once, its stream numbered 1..n without a gap', async () => {
    const writers = [new KnexJournalWriter(first), new KnexJournalWriter(second)];
    await writers[0]!.append(aRun({ runId: 'r1', steps: [], status: 'running' }));
    const stepOf = (who: string, i: number): JournalEvent[] => {
      const base = { run_id: 'r1', step_run_id: `r1.${who}${i}` };
      return [
        { type: 'step.started', at: iso(T0 + 1000 + i), ...base, step_id: `${who}${i}`, step_type: 'http_call', attempt: 1 },
        { type: 'step.finished', at: iso(T0 + 1000 + i), ...base, status: 'succeeded', output: { by: who } },
      ];
    };
    const appends = (w: KnexJournalWriter, who: string) => () => Array.from({ length: 12 }, (_, i) => w.append(stepOf(who, i)));
    await together(appends(writers[0]!, 'a'), appends(writers[1]!, 'b'));

    const seqs = (await first('events').where({ stream: 'r1' }).orderBy('seq').select('seq')).map((r: { seq: unknown }) => Number(r.seq));
    expect(seqs).toEqual(Array.from({ length: 1 + 48 }, (_, i) => i + 1));
    const stream = await new KnexRunRepository(second).stream('r1');
    const finished = stream.flatMap((e) => (e.type === 'step.finished' ? [e.step_run_id] : []));
    expect(new Set(finished).size).toBe(24);
    for (const who of ['a', 'b']) expect(finished.filter((id) => id.startsWith(`r1.${who}`))).toEqual(Array.from({ length: 12 }, (_, i) => `r1.${who}${i}`));
  });

  it('starts runs of one session from both: the session counts every run', async () => {
    const writers = [new KnexJournalWriter(first), new KnexJournalWriter(second)];
    await writers[0]!.append(aSession({ sessionId: 's1' }));
    const runs = (w: KnexJournalWriter, who: string) => () =>
      Array.from({ length: 15 }, (_, i) => w.append(aRun({ runId: `${who}-${i}`, at: T0 + i * 1000, sessionId: 's1' })));
    await together(runs(writers[0]!, 'a'), runs(writers[1]!, 'b'));
    const [session] = await first('sessions').where({ session_id: 's1' }).select('run_count', 'kind');
    expect({ runCount: Number(session.run_count), kind: session.kind }).toEqual({ runCount: 30, kind: 'replay' });
  });

  it('records the same ledger entries from both at once: each counted once, in the entries and in the sums', async () => {
    const ledgers = [new KnexSpendLedger(first), new KnexSpendLedger(second)];
    const at = T0 - 5 * HOUR;
    const batches = Array.from({ length: 8 }, (_, b) => Array.from({ length: 5 }, (_, k) => anEntry({ stepRunId: `r${b}-${k}.send`, recordedAt: at + b * 60_000 + k, gasSpendWei: 1000n + BigInt(k) })));
    const results = await Promise.all(batches.flatMap((batch) => ledgers.map((l) => l.append(batch))));
    expect(results.reduce((n, r) => n + r.written, 0)).toBe(40);
    const day = { since: T0 - 24 * HOUR, until: T0 };
    for (const ledger of ledgers) {
      const [combo] = await ledger.totals(day);
      expect({ gas: combo!.gasSpendWei, txs: combo!.txCount }).toEqual({ gas: 8n * (5n * 1000n + 10n), txs: 40 });
    }
    expect(Number((await first('spend_entries').count({ n: '*' }))[0]!.n)).toBe(40);
  });

  it('fires each cron tick once when two engines reach it at once: one run per tick, the tick moved once', async () => {
    const engines = [new KnexEngineStore(first), new KnexEngineStore(second)];
    const MINUTE = 60_000;
    await engines[0]!.advanceCron('keeper', undefined, T0);
    for (let k = 0; k < 10; k++) {
      const at = T0 + k * MINUTE;
      const tick = (runId: string) => ({
        runId, workflow: 'keeper', start: aRun({ runId, workflow: 'keeper' }).slice(0, 1), at,
        dedupeKeys: [`cron:keeper:${at}`], cronTick: { expected: at, next: at + MINUTE },
      });
      const results = await Promise.all(engines.map((e, i) => e.enqueue(tick(`c${k}-${i}`), '', 0)));
      expect(results.filter((r) => r.created)).toHaveLength(1);
    }
    expect(await engines[1]!.cronNext('keeper')).toBe(T0 + 10 * MINUTE);
    expect(Number((await first('engine_runs').count({ n: '*' }))[0]!.n)).toBe(10);
  });

  it('drains owed receipts from both at once: each read taken by one drain only', async () => {
    await new KnexJournalWriter(first).append(Array.from({ length: 30 }, (_, i) => landedSend({ runId: `p${i}`, receipt: null, at: T0 + i * 1000 })).flat());
    const ledgers = [new KnexSpendLedger(first), new KnexSpendLedger(second)];
    const now = Date.now();
    const taken = await Promise.all([0, 1, 2].flatMap((k) => ledgers.map((l, i) => l.claim(`drain-${k}-${i}`, now, now + 60_000, 7))));
    const ids = taken.flat().map((p) => p.runId);
    expect(new Set(ids).size).toBe(ids.length);
    const rest = await ledgers[0]!.claim('late', now, now + 60_000, 100);
    expect([...ids, ...rest.map((p) => p.runId)].sort()).toEqual(Array.from({ length: 30 }, (_, i) => `p${i}`).sort());
  });

  it('renews an engine\'s leases while a group of fenced appends to the same runs commits: neither deadlocks the other', async () => {
    const engine = new KnexEngineStore(first);
    const writer = new KnexJournalWriter(second);
    const now = Date.now();
    const ids = Array.from({ length: 16 }, (_, i) => `lease-${String(i).padStart(2, '0')}`);
    for (const runId of ids) await engine.enqueue({ runId, workflow: 'w', start: [], at: now }, 'engine-a', now + 60_000);
    await writer.append(ids.flatMap((runId) => aRun({ runId, steps: [], status: 'running' })));
    const fences = new Map(await Promise.all(ids.map(async (id) => [id, (await engine.fenceOf(id))!] as const)));
    for (let round = 0; round < 12; round++) {
      // Queued at once, the appends commit as one group, here in the reverse of the order the rows were inserted in.
      const appends = [...ids].reverse().map((runId) => writer.append([
        { type: 'step.started', at: iso(T0 + 1000 + round), run_id: runId, step_run_id: `${runId}.s${round}`, step_id: `s${round}`, step_type: 'http_call', attempt: 1 },
      ], { fence: { runId, token: fences.get(runId)! } }));
      // Renewals one after another for as long as the appends take, so that some meet the group mid-transaction.
      let appended = false;
      const renewals = (async () => {
        const held: string[][] = [];
        while (!appended) held.push(await engine.renew('engine-a', ids, now, now + 60_000));
        return held;
      })();
      await Promise.all(appends).finally(() => { appended = true; });
      for (const renewed of await renewals) expect([...renewed].sort()).toEqual(ids);
    }
    const started = await second('events').where({ type: 'step.started' }).count({ n: '*' });
    expect(Number(started[0]!.n)).toBe(12 * ids.length);
  });

  it('claims due notifications from both at once: each row taken by one claimer, and every due row taken by the round', async () => {
    const outboxes = [new KnexNotificationOutbox(first), new KnexNotificationOutbox(second)];
    const ids = Array.from({ length: 24 }, (_, i) => `n${String(i).padStart(2, '0')}`);
    await outboxes[0]!.enqueue(ids.map((id) => aNotification({ id })));
    const now = T0 + 60_000;
    // Four claims of 6 at once, two per connection: as many as are due, so none comes back empty-handed.
    const taken = await Promise.all([0, 1].flatMap((k) => outboxes.map((o, i) => o.claimDue(`worker-${k}-${i}`, now, now + 60_000, 6))));
    const claimed = taken.flat().map((n) => n.id);
    expect(claimed.sort()).toEqual(ids);
    for (const batch of taken) expect(batch.map((n) => n.id)).toEqual([...batch.map((n) => n.id)].sort());
  });

  it('delivers the same webhook to both at once: one run, and both answer its id', async () => {
    const engines = [new KnexEngineStore(first), new KnexEngineStore(second)];
    for (let k = 0; k < 10; k++) {
      const delivery = (runId: string) => ({ runId, workflow: 'hooked', start: [], at: T0 + k, dedupeKeys: [`hook:hooked:${k}`] });
      const results = await Promise.all(engines.map((e, i) => e.enqueue(delivery(`d${k}-${i}`), '', 0)));
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r.runId)).size).toBe(1);
    }
    expect(Number((await first('engine_runs').count({ n: '*' }))[0]!.n)).toBe(10);
  });

  it('reserves nonces of one lane from both at once, each side syncing it too: no nonce twice, none skipped', async () => {
    const stores = [new KnexSendStore(first), new KnexSendStore(second)];
    const lane = { relayer: 'ops', network: 'anvil' };
    await Promise.all(stores.map((s) => s.sync(lane, 5, T0)));
    const nonces = await Promise.all(Array.from({ length: 30 }, (_, i) => stores[i % 2]!.reserve(lane, `send-${i}`, T0, 60_000)));
    expect([...nonces].sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => 5 + i));
  });

  it('pauses a workflow from one while the other reports its blocks: the pause stands, and so does the last block', async () => {
    const writers = [new KnexJournalWriter(first), new KnexJournalWriter(second)];
    const state = (s: number, fields: Record<string, unknown>): JournalEvent[] =>
      [{ type: 'workflow.state', at: iso(T0 + s * 1000), workflow: 'deposits', ...fields } as JournalEvent];
    await writers[1]!.append(state(0, { trigger: 'event', network: 'anvil', cursor_block: 0, head_block: 0 }));
    // The blocks are reported one after another (as one poller does), the pause comes from the other at once.
    const reports = (async () => {
      for (let b = 1; b <= 15; b++) await writers[1]!.append(state(b, { cursor_block: b, head_block: b + 1 }));
    })();
    await Promise.all([reports, writers[0]!.append(state(5, { paused: true }))]);
    const states = new KnexWorkflowStates(first);
    expect(await states.paused('deposits')).toBe(true);
    expect(await states.blocks('deposits')).toEqual({ cursorBlock: 15, headBlock: 16 });
  });

  it('records top-ups from both at once and settles each from both at once: every attempt kept, each settled once, whole', async () => {
    const audits = [new KnexTopupAudit(first), new KnexTopupAudit(second)];
    const ids = Array.from({ length: 12 }, (_, i) => `topup-${String(i).padStart(2, '0')}`);
    await Promise.all(ids.map((topupId, i) => audits[i % 2]!.record(aTopup({ topupId, at: T0 + i }))));
    // Each attempt is settled by both at once, one saying confirmed, the other failed: the first to commit stands.
    await Promise.all(ids.flatMap((id, i) => [
      audits[i % 2]!.complete(id, { outcome: 'confirmed', txHash: `0x${String(i).padStart(64, '0')}`, error: null }),
      audits[(i + 1) % 2]!.complete(id, { outcome: 'failed', txHash: null, error: `refused ${i}` }),
    ]));
    const rows = await audits[0]!.list({ equals: {} }, { limit: 100 });
    expect(rows.map((r) => r.topupId).sort()).toEqual(ids);
    for (const r of rows) {
      const i = Number(r.topupId.slice(-2));
      expect([r.outcome, r.txHash, r.error]).toEqual(r.outcome === 'confirmed' ? ['confirmed', `0x${String(i).padStart(64, '0')}`, null] : ['failed', null, `refused ${i}`]);
    }
  });
});

describe('two writers on one PostgreSQL database: the rows every writer shares', () => {
  let store: FreshStore;
  afterEach(() => store.close());

  it('meeting one workflow\'s statistics rows in opposite orders, they take them in one order: both appends land, no deadlock', async () => {
    store = await freshPostgresStore();
    const [a, b, holder] = [await store.open(), await store.open(), await store.open()];
    const writers = { a: new KnexJournalWriter(a), b: new KnexJournalWriter(b) };
    const started = (runId: string, workflow: string): JournalEvent[] => aRun({ runId, workflow, at: T0, steps: [], status: 'running' });
    await writers.a.append([...started('first-1', 'w-1'), ...started('first-2', 'w-2')]);
    const deadlocks = async (): Promise<number> =>
      Number(((await holder.raw('SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()')).rows as Array<{ deadlocks: unknown }>)[0]!.deadlocks);
    const before = await deadlocks();
    // A third transaction holds w-1's row, so both appends are under way, and waiting, when it lets go.
    const held = await holder.transaction();
    await held.raw("SELECT 1 FROM workflow_stats WHERE workflow = 'w-1' FOR UPDATE");
    const appends = [
      writers.a.append([...started('a-1', 'w-1'), ...started('a-2', 'w-2')]),
      writers.b.append([...started('b-2', 'w-2'), ...started('b-1', 'w-1')]),
    ];
    const waiting = async (): Promise<number> =>
      Number(((await holder.raw("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rows as Array<{ n: unknown }>)[0]!.n);
    for (let i = 0; i < 200 && (await waiting()) < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await waiting()).toBe(2);
    await held.commit();
    // In the appends' own orders, b holds w-2 while it waits for w-1, and a, given w-1, then waits for w-2.
    await expect(Promise.all(appends)).resolves.toEqual([{ applied: 2, duplicates: 0 }, { applied: 2, duplicates: 0 }]);
    expect(await deadlocks()).toBe(before);
    const stats = (await holder('workflow_stats').select('workflow').orderBy('workflow')) as Array<{ workflow: string }>;
    expect(stats.map((r) => r.workflow)).toEqual(['w-1', 'w-2']);
    expect(Number((await holder('runs').count({ n: '*' }))[0]!.n)).toBe(6);
  });
});
