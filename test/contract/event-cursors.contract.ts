import type { EngineStore } from '../../src/application/ports/engine-store';
import type { EventCursors, LogRunToEnqueue } from '../../src/application/ports/event-cursors';
import type { JournalWriter } from '../../src/application/ports/journal-writer';
import type { JournalEvent } from '../../src/domain/journal/journal-event';
import { aTxHash } from '../mothers/journal-events';
import { landedSend } from './spend.contract';

const T = 1_800_000_000_000;

/** Event cursors and the engine schedule they enqueue into, on one storage. */
export interface EventStorage {
  readonly cursors: EventCursors;
  readonly engine: EngineStore;
  /** A second handle on the same storage (another engine process), where the storage can have one; else the same. */
  readonly other: EventCursors;
  /** The journal whose send projection the roll back reads (the settled sends and their receipts' blocks). */
  readonly journal: JournalWriter;
  close(): Promise<void>;
}

const hashOf = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;

/** The run of log `logIndex` of block `number` (block hash derived from the number). */
function logRun(workflow: string, number: number, logIndex: number, runId = `r-${workflow}-${number}-${logIndex}`): LogRunToEnqueue {
  const start: JournalEvent[] = [{
    type: 'run.started', at: new Date(T).toISOString(), run_id: runId, workflow, session: 'live', trigger: { kind: 'event', summary: `log ${number}:${logIndex}` },
  }];
  return { run: { runId, workflow, start, at: T }, network: 'devnet', blockNumber: BigInt(number), blockHash: hashOf(number), logIndex, txHash: hashOf(1000 + number) };
}

/** What every EventCursors must do (the knex adapter and the in-memory fake alike). */
export function eventCursorsContract(name: string, open: () => Promise<EventStorage>): void {
  describe(`event cursors contract: ${name}`, () => {
    let s: EventStorage;
    beforeEach(async () => {
      s = await open();
    });
    afterEach(async () => s.close());

    const claimAll = async (): Promise<string[]> => (await s.engine.claimDue('engine-1', T + 60_000, T + 120_000, 1000)).map((c) => c.runId);

    it('starts a cursor once: a second start (another process) answers the first one\'s block', async () => {
      expect(await s.cursors.cursor('on_deposit')).toBeUndefined();
      expect(await s.cursors.startCursor('on_deposit', 'devnet', 120n)).toBe(120n);
      expect(await s.other.startCursor('on_deposit', 'devnet', 500n)).toBe(120n);
      expect(await s.cursors.cursor('on_deposit')).toBe(120n);
      expect(await s.cursors.cursor('other')).toBeUndefined();
    });

    it('moves the cursor with the runs of its logs, which the engine then claims in chain order', async () => {
      await s.cursors.startCursor('on_deposit', 'devnet', 10n);
      const runs = [logRun('on_deposit', 10, 0), logRun('on_deposit', 10, 3), logRun('on_deposit', 12, 1)];
      expect(await s.cursors.advance('on_deposit', 10n, 13n, runs)).toEqual({ advanced: true, started: runs.map((r) => r.run.runId) });
      expect(await s.cursors.cursor('on_deposit')).toBe(13n);
      expect(await claimAll()).toEqual(runs.map((r) => r.run.runId));
      expect((await s.cursors.logRunsFrom('devnet', 11n)).map((r) => [r.workflow, r.runId, r.blockNumber, r.blockHash, r.logIndex]))
        .toEqual([['on_deposit', 'r-on_deposit-12-1', 12n, hashOf(12), 1]]);
    });

    it('writes nothing when the cursor moved meanwhile: two processes reading one range start each log\'s run once', async () => {
      await s.cursors.startCursor('on_deposit', 'devnet', 10n);
      const first = await s.cursors.advance('on_deposit', 10n, 12n, [logRun('on_deposit', 11, 0, 'p1')]);
      const second = await s.other.advance('on_deposit', 10n, 12n, [logRun('on_deposit', 11, 0, 'p2')]);
      expect(first).toEqual({ advanced: true, started: ['p1'] });
      expect(second).toEqual({ advanced: false, started: [] });
      expect(await s.cursors.cursor('on_deposit')).toBe(12n);
      expect(await claimAll()).toEqual(['p1']);
    });

    it('starts no second run for a log seen before (same workflow, block hash, log index), while another workflow gets its own', async () => {
      await s.cursors.startCursor('on_deposit', 'devnet', 10n);
      await s.cursors.startCursor('audit', 'devnet', 10n);
      await s.cursors.advance('on_deposit', 10n, 11n, [logRun('on_deposit', 10, 0, 'a')]);
      // The cursor set back by hand (a restore, an operator): the same log again starts nothing.
      const again = await s.cursors.advance('on_deposit', 11n, 12n, [logRun('on_deposit', 10, 0, 'b'), logRun('on_deposit', 11, 0, 'c')]);
      expect(again).toEqual({ advanced: true, started: ['c'] });
      expect(await s.cursors.advance('audit', 10n, 11n, [logRun('audit', 10, 0, 'd')])).toEqual({ advanced: true, started: ['d'] });
      expect((await claimAll()).sort()).toEqual(['a', 'c', 'd']);
    });

    it('moves over ranges without logs, and records a thousand logs of one range in one move', async () => {
      await s.cursors.startCursor('on_deposit', 'devnet', 0n);
      expect(await s.cursors.advance('on_deposit', 0n, 2000n, [])).toEqual({ advanced: true, started: [] });
      const many = Array.from({ length: 1000 }, (_, i) => logRun('on_deposit', 2000 + Math.floor(i / 5), i % 5));
      const moved = await s.cursors.advance('on_deposit', 2000n, 2200n, many);
      expect(moved.started).toHaveLength(1000);
      expect(await s.cursors.cursor('on_deposit')).toBe(2200n);
      expect(await claimAll()).toHaveLength(1000);
    });

    it('keeps a network\'s block headers from a block up, replacing a number seen again and forgetting those below', async () => {
      const header = (n: number, fork = 0): { number: bigint; hash: string; parentHash: string; timestamp: number } => ({
        number: BigInt(n), hash: hashOf(n * 10 + fork), parentHash: hashOf((n - 1) * 10), timestamp: 1_700_000_000 + n,
      });
      await s.cursors.keepBlocks('devnet', [header(1), header(2), header(3)], -62n);
      // The head given twice (it is also a log's block): kept once.
      await s.cursors.keepBlocks('devnet', [header(3, 1), header(4), header(4)], 2n);
      await s.cursors.keepBlocks('other', [header(9)], 0n);
      expect(await s.cursors.keptBlocks('devnet', 0n)).toEqual([header(2), header(3, 1), header(4)]);
      expect(await s.cursors.keptBlocks('devnet', 4n)).toEqual([header(4)]);
    });
    it('rolls a reorg back once: kept blocks replaced, cursors moved back, a pending response per run of a removed block', async () => {
      const header = (n: number, fork = 0): { number: bigint; hash: string; parentHash: string; timestamp: number } => ({
        number: BigInt(n), hash: hashOf(n * 10 + fork), parentHash: hashOf((n - 1) * 10 + (n > 11 ? fork : 0)), timestamp: 1_700_000_000 + n,
      });
      // Log runs in blocks 10, 11, 12 (hashes hashOf(n): these are the kept blocks of fork 0 below).
      const kept = [10, 11, 12].map((n) => ({ ...header(n), hash: hashOf(n) }));
      await s.cursors.keepBlocks('devnet', kept, 0n);
      await s.cursors.startCursor('on_deposit', 'devnet', 10n);
      await s.cursors.startCursor('audit', 'devnet', 10n);
      await s.cursors.startCursor('elsewhere', 'other', 13n);
      await s.cursors.advance('on_deposit', 10n, 13n, [logRun('on_deposit', 10, 0, 'a'), logRun('on_deposit', 11, 0, 'b'), logRun('on_deposit', 12, 2, 'c')]);
      await s.cursors.advance('audit', 10n, 11n, [logRun('audit', 10, 1, 'd')]);
      const canonical = [{ ...header(11, 5), parentHash: hashOf(10) }, header(12, 5)];
      let id = 0;
      const rollBack = { network: 'devnet', ancestor: 10n, removedTop: kept[2]!, canonical, depth: 2, at: T, newReorgId: () => `reorg-${++id}` };
      const done = await s.cursors.rollBack(rollBack);
      expect(done.applied).toBe(true);
      expect(done.responses.map((r) => [r.reorgId, r.runId, r.workflow, r.block, r.removedBlockHash, r.depth])).toEqual([
        ['reorg-1', 'b', 'on_deposit', 11n, hashOf(11), 2], ['reorg-2', 'c', 'on_deposit', 12n, hashOf(12), 2],
      ]);
      expect(await s.cursors.cursor('on_deposit')).toBe(11n);
      expect(await s.cursors.cursor('audit')).toBe(11n);
      expect(await s.cursors.cursor('elsewhere')).toBe(13n);
      expect(await s.cursors.keptBlocks('devnet', 0n)).toEqual([kept[0], ...canonical]);
      // Another process with the same view finds it rolled back.
      expect(await s.other.rollBack(rollBack)).toEqual({ applied: false, responses: [] });
      expect((await s.cursors.pendingResponses('devnet')).map((r) => r.reorgId)).toEqual(['reorg-1', 'reorg-2']);
      await s.other.responseJournaled('reorg-1');
      expect((await s.cursors.pendingResponses('devnet')).map((r) => [r.reorgId, r.at])).toEqual([['reorg-2', T]]);
      expect(await s.cursors.pendingResponses('other')).toEqual([]);
      // The same log in the new block (another hash) starts a new run.
      const again = await s.cursors.advance('on_deposit', 11n, 13n, [{ ...logRun('on_deposit', 11, 0, 'b2'), blockHash: hashOf(115) }]);
      expect(again.started).toEqual(['b2']);
    });

    it('records a pending reopening, once, for each settled send whose receipt\'s block a roll back removed', async () => {
      const kept = [10, 11, 12].map((n) => ({ number: BigInt(n), hash: hashOf(n), parentHash: hashOf(n - 1), timestamp: 1_700_000_000 + n }));
      await s.cursors.keepBlocks('devnet', kept, 0n);
      const landed = (runId: string, block: number, hash: string, network = 'devnet'): JournalEvent[] =>
        landedSend({ runId, network, at: T, receipt: { gasUsed: '21000', effectiveGasPrice: '1', blockNumber: String(block), blockHash: hash } });
      // Below the ancestor; in removed blocks 11 and 12; in block 12 of the new chain (landed again there); elsewhere.
      await s.journal.append([...landed('s10', 10, hashOf(10)), ...landed('s11', 11, hashOf(11)), ...landed('s12', 12, hashOf(12))]);
      // And one above the head the check read (a newer chain's receipt): not judged.
      await s.journal.append([...landed('new12', 12, hashOf(125)), ...landed('far', 11, hashOf(11), 'other'), ...landed('above', 13, hashOf(13))]);
      const canonical = [{ number: 11n, hash: hashOf(115), parentHash: hashOf(10), timestamp: 1 }, { number: 12n, hash: hashOf(125), parentHash: hashOf(115), timestamp: 2 }];
      const rollBack = { network: 'devnet', ancestor: 10n, removedTop: kept[2]!, canonical, depth: 2, at: T + 5, newReorgId: () => 'r' };
      expect((await s.cursors.rollBack(rollBack)).applied).toBe(true);
      expect(await s.other.rollBack(rollBack)).toEqual({ applied: false, responses: [] });
      const pending = await s.cursors.pendingSendReorgs('devnet');
      expect(pending).toEqual([
        { sendId: 's11.send', runId: 's11', network: 'devnet', txHash: aTxHash('s11'), block: 11n, removedBlockHash: hashOf(11), at: T + 5 },
        { sendId: 's12.send', runId: 's12', network: 'devnet', txHash: aTxHash('s12'), block: 12n, removedBlockHash: hashOf(12), at: T + 5 },
      ]);
      expect(await s.other.pendingSendReorgs('other')).toEqual([]);
      await s.other.sendReorgJournaled('s11.send', hashOf(11));
      expect((await s.cursors.pendingSendReorgs('devnet')).map((r) => r.sendId)).toEqual(['s12.send']);
      // A deep reorg is an alarm, not a roll back: it reopens nothing.
      const head = { number: 13n, hash: hashOf(999), parentHash: hashOf(998), timestamp: 3 };
      await s.cursors.rollBack({ network: 'devnet', ancestor: 9n, removedTop: canonical[1]!, canonical: [head], depth: 4, at: T + 9, newReorgId: () => 'x', cursorsStay: true });
      expect((await s.cursors.pendingSendReorgs('devnet')).map((r) => r.sendId)).toEqual(['s12.send']);
    });

    it('replaces only the kept blocks of a deep reorg: cursors stay and no response is recorded', async () => {
      const kept = [10, 11].map((n) => ({ number: BigInt(n), hash: hashOf(n), parentHash: hashOf(n - 1), timestamp: 1_700_000_000 + n }));
      await s.cursors.keepBlocks('devnet', kept, 0n);
      await s.cursors.startCursor('on_deposit', 'devnet', 10n);
      await s.cursors.advance('on_deposit', 10n, 12n, [logRun('on_deposit', 11, 0, 'a')]);
      const head = { number: 12n, hash: hashOf(999), parentHash: hashOf(998), timestamp: 1_700_000_012 };
      const done = await s.cursors.rollBack({
        network: 'devnet', ancestor: 9n, removedTop: kept[1]!, canonical: [head], depth: 3, at: T, newReorgId: () => 'x', cursorsStay: true,
      });
      expect(done).toEqual({ applied: true, responses: [] });
      expect(await s.cursors.cursor('on_deposit')).toBe(12n);
      expect(await s.cursors.keptBlocks('devnet', 0n)).toEqual([head]);
      expect(await s.cursors.pendingResponses('devnet')).toEqual([]);
    });
  });
}
