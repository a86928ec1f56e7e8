import type { SpendFilter } from '../../src/application/ports/spend-ledger';
import { JournalRejectedError } from '../../src/domain/errors';
import type { JournalEvent, Receipt } from '../../src/domain/journal/journal-event';
import type { LedgerEntry } from '../../src/domain/spend/ledger-entry';
import type { ComboTotals } from '../../src/domain/spend/spend-totals';
import { aTxHash, DAY, HOUR, iso, MINUTE, SECOND, T0 } from '../mothers/journal-events';
import { bruteTotals, landedSend, scanAll, type OpenSpend } from './spend.contract';

const blockHash = (label: string): string => `0x${Buffer.from(label).toString('hex').padEnd(64, '0')}`;
const receiptIn = (block: number, hash: string, gasUsed = '21000'): Receipt => ({
  gasUsed, effectiveGasPrice: '1000000000', status: 1, blockNumber: String(block), blockHash: hash,
});

/** The journal's reopening of run `runId`'s send (as landedSend names it): its receipt's block `hash` was removed. */
function reorged(runId: string, at: number, block: number, hash: string): JournalEvent {
  return { type: 'send.submitted', at: iso(at), send_id: `${runId}.send`, tx_hash: aTxHash(runId), reorged: { block, removed_block_hash: hash } };
}

function settledAgain(runId: string, at: number, receipt: Receipt): JournalEvent {
  return { type: 'send.settled', at: iso(at), send_id: `${runId}.send`, outcome: 'confirmed', tx_hash: aTxHash(runId), receipt };
}

/** Sums over the entries that count, the slow, obviously right way. */
const countingTotals = (entries: readonly LedgerEntry[], filter: SpendFilter): ComboTotals[] => bruteTotals(entries.filter((e) => e.reorged !== true), filter);
const sorted = (combos: ComboTotals[]): ComboTotals[] =>
  combos.map((c) => ({ ...c })).sort((a, b) => `${a.workflow}\n${a.relayer}\n${a.network}`.localeCompare(`${b.workflow}\n${b.relayer}\n${b.network}`));

/**
 * The spend ledger under a reorg (CONTRACT 8.6), as the journal writer feeds it: a landing whose block a reorg removed
 * counts in no sum (whole hours and days of the rollups, and the edges read from the entries, as budgets read them)
 * and is listed `reorged: true`; the transaction landing again writes a new entry.
 */
export function spendReorgsContract(name: string, open: () => Promise<OpenSpend>): void {
  describe(`spend ledger under a reorg: ${name}`, () => {
    let s: OpenSpend;
    beforeEach(async () => {
      s = await open();
    });
    afterEach(async () => s.close());

    // Whole months, days and hours (rollups), and partial hours at either end (entries), as a budget window reads them.
    const filters: SpendFilter[] = [
      {}, { since: T0 - 40 * DAY }, { since: T0 - 2 * DAY, until: T0 + 3 * HOUR }, { since: T0 - 7 * MINUTE }, { since: T0, until: T0 + 30 * SECOND },
      { workflows: ['payouts'], since: T0 - HOUR + 11 * MINUTE }, { relayers: ['ops'] }, { networks: ['base'] },
    ];
    const expectSums = async (): Promise<void> => {
      const entries = await scanAll(s.ledger);
      for (const filter of filters) expect([filter, sorted(await s.ledger.totals(filter))]).toEqual([filter, countingTotals(entries, filter)]);
    };

    it('takes a reorged landing out of every sum, lists it reorged, and keeps it so after a restart', async () => {
      const removed = blockHash('removed-100');
      await s.journal.append(landedSend({ runId: 'a1', at: T0, valueWei: '7000', receipt: receiptIn(100, removed) }));
      await s.journal.append(landedSend({ runId: 'a2', at: T0, valueWei: '5', receipt: receiptIn(99, blockHash('kept-99'), '30000') }));
      await s.journal.append(landedSend({ runId: 'a3', at: T0 - DAY, network: 'base', receipt: receiptIn(100, removed) }));
      const [before] = await s.ledger.totals({ networks: ['sepolia'] });
      expect(before).toMatchObject({ txCount: 2, valueWei: 7005n });

      expect(await s.journal.append([reorged('a1', T0 + 10 * SECOND, 100, removed)])).toEqual({ applied: 1, duplicates: 0 });
      const entries = await scanAll(s.ledger);
      expect(entries.map((e) => [e.stepRunId, e.blockNumber, e.blockHash, e.reorged === true])).toEqual([
        ['a3.pay', 100n, removed, false], ['a1.pay', 100n, removed, true], ['a2.pay', 99n, blockHash('kept-99'), false],
      ]);
      expect(await s.ledger.totals({ networks: ['sepolia'] })).toEqual([expect.objectContaining({ txCount: 1, valueWei: 5n, gasSpendWei: 30000n * 1_000_000_000n })]);
      await expectSums();
      // The same reopening again (a crash before it was marked journaled) is a duplicate: nothing is taken out twice.
      expect(await s.journal.append([reorged('a1', T0 + 10 * SECOND, 100, removed)])).toEqual({ applied: 0, duplicates: 1 });
      await expectSums();
      const again = await s.reopen();
      expect((await again.ledger.latest({ networks: ['sepolia'] }, 10)).map((e) => [e.stepRunId, e.reorged === true])).toEqual([['a2.pay', false], ['a1.pay', true]]);
      expect(await again.ledger.totals({ networks: ['sepolia'] })).toEqual([expect.objectContaining({ txCount: 1, valueWei: 5n })]);
    });

    it('writes a new entry when the transaction lands again, and no third one when that settle repeats', async () => {
      const removed = blockHash('removed-200');
      await s.journal.append(landedSend({ runId: 'b1', at: T0, valueWei: '900', receipt: receiptIn(200, removed) }));
      await s.journal.append([reorged('b1', T0 + 20 * SECOND, 200, removed)]);
      const landed = settledAgain('b1', T0 + 40 * SECOND, receiptIn(202, blockHash('new-202'), '25000'));
      expect(await s.journal.append([landed])).toEqual({ applied: 1, duplicates: 0 });
      await s.journal.append([{ ...landed, at: iso(T0 + HOUR) }]);
      const entries = await scanAll(s.ledger);
      expect(entries.map((e) => [e.stepRunId, e.txHash, e.blockNumber, e.reorged === true, e.gasSpendWei, e.recordedAt])).toEqual([
        ['b1.pay', aTxHash('b1'), 200n, true, 21000n * 1_000_000_000n, T0 + 4 * SECOND],
        ['b1.pay', aTxHash('b1'), 202n, false, 25000n * 1_000_000_000n, T0 + 40 * SECOND],
      ]);
      expect(await s.ledger.totals({})).toEqual([expect.objectContaining({ txCount: 1, valueWei: 900n, gasSpendWei: 25000n * 1_000_000_000n })]);
      await expectSums();
    });

    it('keeps the second entry of a transaction settled, reorged and settled again in one append', async () => {
      const removed = blockHash('removed-300');
      const events = [
        ...landedSend({ runId: 'c1', at: T0, receipt: receiptIn(300, removed) }),
        reorged('c1', T0 + 5 * SECOND, 300, removed),
        settledAgain('c1', T0 + 6 * SECOND, receiptIn(301, blockHash('new-301'), '40000')),
      ];
      await s.journal.append(events);
      expect((await scanAll(s.ledger)).map((e) => [e.blockNumber, e.reorged === true])).toEqual([[300n, true], [301n, false]]);
      expect(await s.ledger.totals({})).toEqual([expect.objectContaining({ txCount: 1, gasSpendWei: 40000n * 1_000_000_000n })]);
    });

    it('drops a receipt read still owed for a reorged landing: the send is no longer settled', async () => {
      await s.journal.append(landedSend({ runId: 'd1', at: T0, receipt: { blockNumber: '400', blockHash: blockHash('removed-400') } }));
      expect(await s.ledger.counts()).toEqual({ pending: 1, gaps: 0 });
      await s.journal.append([reorged('d1', T0 + 5 * SECOND, 400, blockHash('removed-400'))]);
      expect(await s.ledger.counts()).toEqual({ pending: 0, gaps: 0 });
      expect(await scanAll(s.ledger)).toEqual([]);
    });

    it('refuses to reopen a send that is not settled with that hash, and changes nothing', async () => {
      const removed = blockHash('removed-500');
      const events = landedSend({ runId: 'e1', at: T0, receipt: receiptIn(500, removed) });
      await s.journal.append(events.slice(0, 4));
      await expect(s.journal.append([reorged('e1', T0 + 5 * SECOND, 500, removed)])).rejects.toBeInstanceOf(JournalRejectedError);
      await s.journal.append(events.slice(4));
      const other: JournalEvent = { ...reorged('e1', T0 + 6 * SECOND, 500, removed), tx_hash: aTxHash('someone else') } as JournalEvent;
      await expect(s.journal.append([other])).rejects.toBeInstanceOf(JournalRejectedError);
      expect((await scanAll(s.ledger)).map((e) => e.reorged === true)).toEqual([false]);
      expect(await s.ledger.totals({})).toEqual([expect.objectContaining({ txCount: 1 })]);
    });
  });
}
