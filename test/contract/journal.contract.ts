import { JournalRejectedError } from '../../src/domain/errors';
import type { JournalEvent } from '../../src/domain/journal/journal-event';
import type { JournalWriter } from '../../src/application/ports/journal-writer';
import type { RunFilter, RunRepository } from '../../src/application/ports/run-repository';
import type { StorageHealth } from '../../src/application/ports/storage-health';
import { toRunItem } from '../../src/application/history/items';
import { exportSteps } from '../../src/application/history/timeline';
import { aFinish, aPark, aResume, aRun, aTxHash, FETCH_STEP, HOUR, iso, MINUTE, T0 } from '../mothers/journal-events';

export type JournalPorts = JournalWriter & RunRepository & StorageHealth;

/** Four runs that each answer some run filters: every filter has a run to find and runs to leave out. */
const FILTERED_RUNS = (): JournalEvent[] => [
  ...aRun({ runId: 'r1', workflow: 'payouts', at: T0, network: 'sepolia', contract: '0xc1', block: 10, trigger: { kind: 'cron' },
    send: { relayer: 'ops', txHash: aTxHash('t1'), stepId: 'send_payout' } }),
  ...aRun({ runId: 'r2', workflow: 'keeper', at: T0 + MINUTE, network: 'base', block: 11, trigger: { kind: 'event' },
    failure: { kind: 'http_error' }, steps: [{ stepId: 'fetch_price' }] }),
  ...aRun({ runId: 'r3', workflow: 'payouts', at: T0 + 2 * MINUTE, session: 'replay', sessionId: 's1', replayOf: 'r1',
    approval: { decision: 'rejected', by: 'carol' }, send: { relayer: 'treasury', status: 'queued' } }),
  ...aRun({ runId: 'r4', workflow: 'keeper', at: T0 + 3 * MINUTE, park: { waitKind: 'delay' } }),
];

/**
 * What every implementation of the journal ports must do, the knex adapter and the in-memory fake alike.
 * `open` gives a fresh, empty journal; `close` releases it.
 */
export function journalContract(name: string, open: () => Promise<{ ports: JournalPorts; close(): Promise<void> }>): void {
  describe(`journal ports contract: ${name}`, () => {
    let ports: JournalPorts;
    let close: () => Promise<void>;
    beforeEach(async () => {
      ({ ports, close } = await open());
    });
    afterEach(async () => close());

    const ids = async (filter: RunFilter, limit = 100): Promise<string[]> => (await ports.list(filter, { limit })).map((r) => r.runId);

    it('projects a run from its events and reads it back', async () => {
      const result = await ports.append(aRun({
        runId: 'run-1', workflow: 'payouts', at: T0, network: 'sepolia', contract: '0xabc', block: 42,
        send: { relayer: 'ops', txHash: aTxHash('one'), outcome: 'confirmed' },
      }));
      expect(result.duplicates).toBe(0);
      const run = await ports.get('run-1');
      expect(run).toMatchObject({
        runId: 'run-1', workflow: 'payouts', status: 'succeeded', network: 'sepolia', contract: '0xabc', block: 42,
        relayers: ['ops'], txHashes: [aTxHash('one')], createdAt: T0, session: 'live',
      });
      expect(run!.finishedAt).toBeGreaterThan(T0);
      expect(run!.durationMs).toBe(run!.finishedAt! - T0);
      expect(await ports.get('run-unknown')).toBeUndefined();
    });

    it('lists newest first on (created_at, run_id), ties broken by run id descending', async () => {
      await ports.append([
        ...aRun({ runId: 'a', at: T0 }), ...aRun({ runId: 'c', at: T0 }), ...aRun({ runId: 'b', at: T0 }),
        ...aRun({ runId: 'z', at: T0 - HOUR }), ...aRun({ runId: 'new', at: T0 + HOUR }),
      ]);
      expect(await ids({})).toEqual(['new', 'c', 'b', 'a', 'z']);
      expect((await ports.list({}, { limit: 2, after: { createdAt: T0, id: 'c' } })).map((r) => r.runId)).toEqual(['b', 'a']);
      expect((await ports.list({}, { limit: 10, after: { createdAt: T0, id: 'a' } })).map((r) => r.runId)).toEqual(['z']);
    });

    it('answers every run filter', async () => {
      await ports.append(FILTERED_RUNS());
      expect(await ids({ workflow: 'payouts' })).toEqual(['r3', 'r1']);
      expect(await ids({ status: 'failed' })).toEqual(['r2']);
      expect(await ids({ status: 'waiting' })).toEqual(['r4']);
      expect(await ids({ trigger: 'event' })).toEqual(['r2']);
      expect(await ids({ network: 'base' })).toEqual(['r2']);
      expect(await ids({ contract: '0xc1' })).toEqual(['r1']);
      expect(await ids({ relayer: 'treasury' })).toEqual(['r3']);
      expect(await ids({ txHash: aTxHash('t1') })).toEqual(['r1']);
      expect(await ids({ block: 11 })).toEqual(['r2']);
      expect(await ids({ runId: 'r3' })).toEqual(['r3']);
      expect(await ids({ stepId: 'fetch_price' })).toEqual(['r2']);
      expect(await ids({ stepId: 'send_payout' })).toEqual(['r1']);
      expect(await ids({ errorKind: 'http_error' })).toEqual(['r2']);
      expect(await ids({ approvalStatus: 'rejected' })).toEqual(['r3']);
      expect(await ids({ session: 'replay' })).toEqual(['r3']);
      expect(await ids({ sessionId: 's1' })).toEqual(['r3']);
      expect(await ids({ sessionId: 's2' })).toEqual([]);
      expect(await ids({ since: T0 + MINUTE })).toEqual(['r4', 'r3', 'r2']);
      expect(await ids({ until: T0 + MINUTE })).toEqual(['r2', 'r1']);
      expect(await ids({ workflow: 'payouts', relayer: 'ops' })).toEqual(['r1']);
      expect(await ids({ relayer: 'ops', txHash: aTxHash('t1'), since: T0 })).toEqual(['r1']);
      expect(await ids({ workflow: 'nope' })).toEqual([]);
    });

    it('pages with a keyset position inside a filter', async () => {
      const events = Array.from({ length: 7 }, (_, i) => aRun({ runId: `p${i}`, workflow: i % 2 ? 'odd' : 'even', at: T0 + i * MINUTE })).flat();
      await ports.append(events);
      const first = await ports.list({ workflow: 'even' }, { limit: 2 });
      expect(first.map((r) => r.runId)).toEqual(['p6', 'p4']);
      const last = first[first.length - 1]!;
      const second = await ports.list({ workflow: 'even' }, { limit: 2, after: { createdAt: last.createdAt, id: last.runId } });
      expect(second.map((r) => r.runId)).toEqual(['p2', 'p0']);
    });

    /** listItems answers the page list answers, each run as toRunItem and JSON.stringify render it. */
    const expectItemsOfList = async (filter: RunFilter, limit: number, after?: { createdAt: number; id: string }): Promise<void> => {
      const runs = await ports.list(filter, { limit, after });
      const items = await ports.listItems(filter, { limit, after });
      expect(items.map((i) => i.position)).toEqual(runs.map((r) => ({ createdAt: r.createdAt, id: r.runId })));
      expect(items.map((i) => i.status)).toEqual(runs.map((r) => r.status));
      expect(items.map((i) => i.json)).toEqual(runs.map((r) => JSON.stringify(toRunItem(r))));
    };

    it('renders the page of every filter and cursor as its items, the runs of list in its order', async () => {
      await ports.append([...FILTERED_RUNS(), ...aRun({ runId: 'r5', workflow: 'keeper', at: T0 + 3 * MINUTE, status: 'running' })]);
      const filters: RunFilter[] = [
        {}, { workflow: 'payouts' }, { status: 'waiting' }, { trigger: 'event' }, { network: 'base' }, { contract: '0xc1' },
        { relayer: 'treasury' }, { txHash: aTxHash('t1') }, { block: 11 }, { runId: 'r3' }, { stepId: 'fetch_price' },
        { errorKind: 'http_error' }, { approvalStatus: 'rejected' }, { session: 'replay' }, { sessionId: 's1' }, { since: T0 + MINUTE },
        { until: T0 + MINUTE }, { workflow: 'payouts', relayer: 'ops' }, { workflow: 'nope' }, { stepId: 'fetch_price', since: T0, until: T0 + 10 * MINUTE },
      ];
      for (const filter of filters) await expectItemsOfList(filter, 100);
      expect((await ports.listItems({}, { limit: 100 })).map((i) => i.position.id)).toEqual(['r5', 'r4', 'r3', 'r2', 'r1']);
      await expectItemsOfList({}, 2, { createdAt: T0 + 3 * MINUTE, id: 'r4' });
      await expectItemsOfList({ workflow: 'keeper' }, 1, { createdAt: T0 + 3 * MINUTE, id: 'r5' });
      // A side table's filter alone, past a cursor (its runs looked up, not joined).
      await expectItemsOfList({ stepId: 'fetch_price' }, 1, { createdAt: T0 + 3 * MINUTE, id: 'r5' });
      await expectItemsOfList({ relayer: 'ops' }, 100, { createdAt: T0 + 3 * MINUTE, id: 'r5' });
    });

    it('renders awkward text, large numbers and times before 1970 or at the edges of the calendar as toRunItem does', async () => {
      const awkward = 'q"b\\s/\n\t\r\u0001\u001f\u007f é ✓ \u2028 😀 <redacted>';
      await ports.append([
        ...aRun({ runId: 'odd-1', workflow: awkward, at: '1969-12-31T23:59:59.999Z', network: `net ${awkward}`, contract: awkward,
          block: Number.MAX_SAFE_INTEGER, failure: { kind: awkward } }),
        ...aRun({ runId: 'odd-2', at: '1900-03-01T00:00:00.000Z', park: { waitKind: 'approval' } }),
        ...aRun({ runId: 'odd-3', at: '0001-01-01T00:00:00.001Z' }),
        ...aRun({ runId: 'odd-4', at: '9999-12-31T23:58:00.500Z', send: { relayer: awkward, txHash: aTxHash('odd') } }),
        ...aRun({ runId: 'odd-5', at: '2024-02-29T12:00:00Z', status: 'running' }),
      ]);
      await expectItemsOfList({}, 100);
      const items = await ports.listItems({}, { limit: 100 });
      expect(items).toHaveLength(5);
      expect(JSON.parse(items.find((i) => i.position.id === 'odd-1')!.json)).toMatchObject({ workflow: awkward, created_at: '1969-12-31T23:59:59.999Z' });
    });

    it('applies the same events twice as once (idempotent)', async () => {
      const events = aRun({ runId: 'dup', send: { relayer: 'ops', txHash: aTxHash('d') }, approval: { decision: 'approved' } });
      const first = await ports.append(events);
      const before = await ports.get('dup');
      const streamBefore = await ports.stream('dup');
      const again = await ports.append(events);
      expect(again).toEqual({ applied: 0, duplicates: first.applied });
      expect(await ports.get('dup')).toEqual(before);
      expect(await ports.stream('dup')).toEqual(streamBefore);
    });

    it('keeps every event of a run in its stream, in journal order', async () => {
      const events = aRun({ runId: 'st', send: { relayer: 'ops', txHash: aTxHash('s') }, approval: { decision: 'approved' }, reorg: { reorgId: 'rg-1' } });
      await ports.append(events);
      const stream = await ports.stream('st');
      expect(stream.map((e) => e.type)).toEqual(events.map((e) => e.type));
      expect(stream).toEqual(JSON.parse(JSON.stringify(events)));
    });

    it('reads the streams of several runs at once', async () => {
      await ports.append([...aRun({ runId: 'm1', send: { txHash: aTxHash('m1') } }), ...aRun({ runId: 'm2' })]);
      const streams = await ports.streams(['m1', 'm2', 'nothing']);
      expect([...streams.keys()].sort()).toEqual(['m1', 'm2']);
      expect(streams.get('m1')).toEqual(await ports.stream('m1'));
      expect(streams.get('m2')).toEqual(await ports.stream('m2'));
    });

    it('reads the streams of several runs with only the events of some types, in journal order', async () => {
      await ports.append([...aRun({ runId: 'm1', send: { txHash: aTxHash('m1') } }), ...aRun({ runId: 'm2', steps: [] })]);
      const types = ['step.started', 'send.settled', 'run.finished'] as const;
      const streams = await ports.streams(['m1', 'm2', 'nothing'], types);
      const m1 = (await ports.stream('m1')).filter((e) => (types as readonly string[]).includes(e.type));
      expect(m1.map((e) => e.type)).toEqual(expect.arrayContaining(['step.started', 'send.settled', 'run.finished']));
      expect(streams.get('m1')).toEqual(m1);
      expect(streams.get('m2')!.map((e) => e.type)).toEqual(['run.finished']);
      expect(streams.has('nothing')).toBe(false);
      expect(await ports.streams(['m1'], ['reorg.step'])).toEqual(new Map());
    });

    it('rejects an event that refers to what was never journaled, and writes nothing of the batch', async () => {
      await ports.append(aRun({ runId: 'ok' }));
      const bad: JournalEvent[] = [
        ...aRun({ runId: 'half' }),
        { type: 'send.submitted', at: iso(T0), send_id: 'never-queued', tx_hash: '0x1' },
      ];
      await expect(ports.append(bad)).rejects.toThrow(JournalRejectedError);
      await expect(ports.append(bad)).rejects.toMatchObject({ index: bad.length - 1 });
      expect(await ports.get('half')).toBeUndefined();
      expect(await ids({})).toEqual(['ok']);
    });

    it('appends made at once each succeed or fail alone, in the order they were made', async () => {
      await ports.append(aRun({ runId: 'base', at: T0 }));
      const bad: JournalEvent[] = [...aRun({ runId: 'doomed', at: T0 }), { type: 'send.submitted', at: iso(T0), send_id: 'never-queued', tx_hash: '0x1' }];
      const outcomes = await Promise.allSettled([
        ports.append(aRun({ runId: 'first', at: T0 + MINUTE })),
        ports.append(bad),
        ports.append(aRun({ runId: 'third', at: T0 + 2 * MINUTE })),
        // The same events twice in one burst: the second append finds them all already journaled.
        ports.append(aRun({ runId: 'first', at: T0 + MINUTE })),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ index: bad.length - 1 });
      const firstEvents = aRun({ runId: 'first', at: T0 + MINUTE }).length;
      expect((outcomes[0] as PromiseFulfilledResult<unknown>).value).toEqual({ applied: firstEvents, duplicates: 0 });
      expect((outcomes[3] as PromiseFulfilledResult<unknown>).value).toEqual({ applied: 0, duplicates: firstEvents });
      expect(await ids({})).toEqual(['third', 'first', 'base']);
    });

    it('refuses a second, different run.started for the same run', async () => {
      await ports.append(aRun({ runId: 'once', at: T0 }));
      await expect(ports.append(aRun({ runId: 'once', at: T0 + HOUR }).slice(0, 1))).rejects.toThrow(/already started/);
      expect((await ports.get('once'))!.createdAt).toBe(T0);
    });

    it('appends a stream of batches all or nothing', async () => {
      async function* batches(): AsyncGenerator<JournalEvent[]> {
        yield aRun({ runId: 'b1' });
        yield [{ type: 'run.finished', at: iso(T0), run_id: 'no-such-run', status: 'succeeded' }];
      }
      await expect(ports.appendAll(batches())).rejects.toMatchObject({ index: aRun({ runId: 'b1' }).length });
      expect(await ports.get('b1')).toBeUndefined();
      const seen: number[] = [];
      async function* good(): AsyncGenerator<JournalEvent[]> {
        yield aRun({ runId: 'g1' });
        yield aRun({ runId: 'g2', at: T0 + MINUTE });
      }
      const result = await ports.appendAll(good(), (done) => seen.push(done.applied));
      expect(result.applied).toBe(aRun({ runId: 'g1' }).length * 2);
      expect(seen).toEqual([result.applied / 2, result.applied]);
      expect(await ids({})).toEqual(['g2', 'g1']);
    });

    describe('lifecycles (a run, its sends and approvals)', () => {
      /**
       * Appending `batch` is refused at `index` for `reason`; run `runId` and its stream stay as they were, and
       * nothing else of the batch is written.
       */
      const expectRefused = async (batch: JournalEvent[], index: number, reason: string, runId: string): Promise<void> => {
        const run = await ports.get(runId);
        const stream = await ports.stream(runId);
        const runsBefore = await ids({});
        const err = await ports.append(batch).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(JournalRejectedError);
        expect(err).toMatchObject({ index, reason });
        expect(await ports.get(runId)).toEqual(run);
        expect(await ports.stream(runId)).toEqual(stream);
        expect(await ids({})).toEqual(runsBefore);
      };
      const later = iso(T0 + HOUR);
      const step = { run_id: 'done', step_run_id: 'done.late' };

      it.each<[string, JournalEvent, string]>([
        ['parked', aPark('done', later, { waitKind: 'delay' }), 'cannot be parked'],
        ['resumed', aResume('done', later), 'cannot be resumed'],
        ['finished again', aFinish('done', later, 'failed', 'late_error'), 'cannot finish again'],
        ['starting a step', { type: 'step.started', at: later, ...step, step_id: 'late', step_type: 'http_call', attempt: 1 }, 'starts no step'],
        ['finishing a step', { type: 'step.finished', at: later, ...step, status: 'succeeded' }, 'takes no step.finished'],
        ['queueing a send', {
          type: 'send.queued', at: later, ...step, send_id: 'done.late-send', network: 'sepolia', chain_id: 11155111, relayer: 'ops',
          to: '0x000000000000000000000000000000000000beef', value_wei: '1', idempotency_key: 'late',
        }, 'takes no send.queued'],
        ['asking an approval', { type: 'approval.requested', at: later, approval_id: 'done.late-approval', ...step }, 'takes no approval.requested'],
      ])('refuses a finished run %s, naming the event and why, and writes nothing of the batch', async (_, event, why) => {
        await ports.append(aRun({ runId: 'done' }));
        const fresh = aRun({ runId: 'fresh', at: T0 + MINUTE });
        await expectRefused([...fresh, event], fresh.length, `run_id: the run already succeeded: a finished run ${why}`, 'done');
      });

      it('refuses finished, then parked, then finished again in one batch at the park', async () => {
        const events = aRun({ runId: 'twice' });
        const err = await ports.append([...events, aPark('twice', later, { waitKind: 'delay' }), aFinish('twice', iso(T0 + 2 * HOUR))]).catch((e: unknown) => e);
        expect(err).toMatchObject({ index: events.length, reason: 'run_id: the run already succeeded: a finished run cannot be parked' });
        expect(await ports.get('twice')).toBeUndefined();
      });

      it('refuses a run.resumed of a running run, a step started while parked, and a second park before a resume', async () => {
        await ports.append(aRun({ runId: 'live', status: 'running' }));
        await expectRefused([aResume('live', later)], 0, 'run_id: the run is not parked: run.resumed needs a run.parked before it', 'live');
        await ports.append([aPark('live', later, { waitKind: 'delay', dueAt: iso(T0 + 2 * HOUR) })]);
        await expectRefused([{ type: 'step.started', at: iso(T0 + 2 * HOUR), run_id: 'live', step_run_id: 'live.next', step_id: 'next', step_type: 'http_call', attempt: 1 }],
          0, 'run_id: the run is parked (delay): a step starts only after run.resumed', 'live');
        await expectRefused([aPark('live', iso(T0 + 2 * HOUR), { waitKind: 'approval' })], 0,
          'run_id: the run is already parked (delay): run.resumed comes before another run.parked', 'live');
        await ports.append([aResume('live', iso(T0 + 2 * HOUR)), aPark('live', iso(T0 + 3 * HOUR), { waitKind: 'approval' })]);
        expect(await ports.get('live')).toMatchObject({ status: 'waiting', waitKind: 'approval', parkedAt: T0 + 3 * HOUR });
      });

      it('takes what may still come after a run ended: its send settling, a late approval decision, a reorg response', async () => {
        await ports.append(aRun({ runId: 'ended', send: { status: 'submitted', txHash: aTxHash('ended') }, approval: {} }));
        expect(await ports.get('ended')).toMatchObject({ status: 'succeeded', approvalStatus: 'pending' });
        const after: JournalEvent[] = [
          { type: 'send.settled', at: later, send_id: 'ended.send', outcome: 'confirmed', tx_hash: aTxHash('ended') },
          { type: 'approval.decided', at: later, approval_id: 'ended.approval', decision: 'expired' },
          { type: 'reorg.response', at: later, reorg_id: 'ended.reorg', run_id: 'ended', workflow: 'payouts', network: 'sepolia', block: 7 },
        ];
        expect(await ports.append(after)).toEqual({ applied: 3, duplicates: 0 });
        expect(await ports.get('ended')).toMatchObject({ status: 'succeeded', approvalStatus: 'expired', txHashes: [aTxHash('ended')] });
        expect((await ports.stream('ended')).slice(-3)).toEqual(after);
      });

      it('refuses a settled send parked, submitted again or settled otherwise, and takes the same settle repeated', async () => {
        await ports.append(aRun({ runId: 'paid', send: { txHash: aTxHash('paid') } }));
        const settled = `send_id: the send already settled (confirmed): a settled send takes no`;
        await expectRefused([{ type: 'send.submitted', at: later, send_id: 'paid.send', tx_hash: aTxHash('bump') }], 0, `${settled} send.submitted`, 'paid');
        await expectRefused([{ type: 'send.parked', at: later, send_id: 'paid.send' }], 0, `${settled} send.parked`, 'paid');
        await expectRefused([{ type: 'send.settled', at: later, send_id: 'paid.send', outcome: 'dropped' }], 0, `${settled} second send.settled with dropped`, 'paid');
        await expectRefused([{ type: 'send.settled', at: later, send_id: 'paid.send', outcome: 'confirmed', tx_hash: aTxHash('other') }], 0,
          `${settled} second send.settled with confirmed and another hash`, 'paid');
        const repeat: JournalEvent = { type: 'send.settled', at: later, send_id: 'paid.send', outcome: 'confirmed', tx_hash: aTxHash('paid') };
        expect(await ports.append([repeat])).toEqual({ applied: 1, duplicates: 0 });
        expect((await ports.get('paid'))!.txHashes).toEqual([aTxHash('paid')]);
      });

      it('refuses an approval decided twice', async () => {
        await ports.append(aRun({ runId: 'asked', approval: { decision: 'approved' }, status: 'running' }));
        await expectRefused([{ type: 'approval.decided', at: later, approval_id: 'asked.approval', decision: 'rejected', by: 'mallory' }], 0,
          'approval_id: the approval is already approved: an approval is decided once', 'asked');
        expect((await ports.get('asked'))!.approvalStatus).toBe('approved');
      });

      it('applies a history of parks, resumes and a settle after the end twice as once', async () => {
        const events: JournalEvent[] = [
          ...aRun({ runId: 'cycle', status: 'running', send: { status: 'submitted', txHash: aTxHash('cycle') } }),
          aPark('cycle', later, { waitKind: 'tx' }), aResume('cycle', iso(T0 + 2 * HOUR)),
          aPark('cycle', iso(T0 + 3 * HOUR), { waitKind: 'delay' }), aResume('cycle', iso(T0 + 4 * HOUR)),
          aFinish('cycle', iso(T0 + 5 * HOUR)),
          { type: 'send.settled', at: iso(T0 + 6 * HOUR), send_id: 'cycle.send', outcome: 'confirmed', tx_hash: aTxHash('cycle') },
        ];
        const first = await ports.append(events);
        expect(first).toEqual({ applied: events.length, duplicates: 0 });
        const run = await ports.get('cycle');
        expect(run).toMatchObject({ status: 'succeeded', finishedAt: T0 + 5 * HOUR, waitKind: null });
        expect(await ports.append(events)).toEqual({ applied: 0, duplicates: events.length });
        expect(await ports.get('cycle')).toEqual(run);
        expect(await ports.stream('cycle')).toEqual(JSON.parse(JSON.stringify(events)));
      });
    });

    describe("the export's step runs", () => {
      /** Runs whose step runs take every turn of the fold: retries, simulation and budget checks, parks on a step and on none, a resumption, no steps at all. */
      const journal = (): JournalEvent[] => [
        ...aRun({
          runId: 'x1', at: T0, steps: [{ ...FETCH_STEP, failedAttempts: 2, retryError: { kind: 'http_status', message: '503' } }],
          send: { txHash: aTxHash('x1'), simulation: { ok: true, gasEstimate: '21000' }, budgetChecks: [{ budget: 'daily', spentWei: '5', capWei: '10', allowed: true }] },
        }),
        ...aRun({ runId: 'x2', at: T0 + MINUTE, steps: [FETCH_STEP, { stepId: 'cool_down', stepType: 'delay', unfinished: true }], park: { waitKind: 'delay', dueAt: iso(T0 + 2 * MINUTE) } }),
        aResume('x2', T0 + 2 * MINUTE),
        // A park without a step run id: on the step run started last.
        aPark('x2', T0 + 3 * MINUTE, { waitKind: 'event' }),
        aResume('x2', T0 + 4 * MINUTE),
        { type: 'step.finished', at: iso(T0 + 5 * MINUTE), run_id: 'x2', step_run_id: 'x2.cool_down', status: 'succeeded', output: { waited: '10m' } },
        aFinish('x2', T0 + 6 * MINUTE),
        ...aRun({ runId: 'x3', at: T0 + 2 * MINUTE, steps: [] }),
        ...aRun({ runId: 'x4', at: T0 + 3 * MINUTE, approval: {}, park: { waitKind: 'approval', expiresAt: iso(T0 + HOUR) } }),
      ];
      const ids = ['x4', 'x3', 'x2', 'x1', 'nothing'];

      /** What the export shows of each run: exportSteps of its stream as stored. */
      const expected = async (): Promise<{ count: number; texts: string[] }> => {
        const steps = await Promise.all(ids.map(async (id) => exportSteps(id, await ports.stream(id))));
        return { count: steps.flat().length, texts: steps.filter((s) => s.length).map((s) => JSON.stringify(s).slice(1, -1)) };
      };

      it('keeps the step runs of one append as exportSteps folds the runs\' streams, in the order asked', async () => {
        await ports.append(journal());
        const want = await expected();
        expect(want.count).toBe(5);
        expect(want.texts.map((t) => (JSON.parse(`[${t}]`) as { run_id: string }[])[0]!.run_id)).toEqual(['x4', 'x2', 'x1']);
        expect(await ports.stepItemsOfRuns(ids)).toEqual(want);
      });

      it('keeps them when every event is an append of its own, and when the same events are appended again', async () => {
        for (const e of journal()) await ports.append([e]);
        expect(await ports.stepItemsOfRuns(ids)).toEqual(await expected());
        await ports.append(journal());
        expect(await ports.stepItemsOfRuns(ids)).toEqual(await expected());
      });

      it.each([1, 2, 3, 5])('keeps them across a stream of batches of %i events', async (size) => {
        const events = journal();
        async function* batches(): AsyncGenerator<JournalEvent[]> {
          for (let i = 0; i < events.length; i += size) yield events.slice(i, i + size);
        }
        await ports.appendAll(batches());
        expect(await ports.stepItemsOfRuns(ids)).toEqual(await expected());
      });
    });

    it('answers a health ping', async () => {
      await expect(ports.ping()).resolves.toBeUndefined();
    });
  });
}
