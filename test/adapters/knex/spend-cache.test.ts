/**
 * The knex ledger keeps the sums of whole past buckets between summaries. Whatever it keeps, a summary must
 * still see every entry: one recorded back in time by this process (ledger or journal writer), and one
 * written by another process.
 */
import type { Knex } from 'knex';
import { KnexJournalWriter } from '../../../src/adapters/knex/knex-journal.writer';
import { KnexSpendLedger } from '../../../src/adapters/knex/knex-spend-ledger';
import { anEntry } from '../../contract/spend.contract';
import { KNEX_STORES, type FreshStore } from '../../support/stores';
import { aTxHash, iso } from '../../mothers/journal-events';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-06-10T15:20:00.000Z');

describe.each(KNEX_STORES)('KnexSpendLedger summaries over cached buckets on %s', (_name, freshStore) => {
  let store: FreshStore;
  let db: Knex;
  let other: Knex;
  let ledger: KnexSpendLedger;
  const lastDay = { since: NOW - 24 * HOUR, until: NOW };
  const gasOf = async (l: KnexSpendLedger): Promise<bigint> => (await l.totals(lastDay)).reduce((s, c) => s + c.gasSpendWei, 0n);

  beforeEach(async () => {
    store = await freshStore();
    db = await store.open();
    other = await store.open();
    ledger = new KnexSpendLedger(db);
    await ledger.append([anEntry({ stepRunId: 'a.send', recordedAt: NOW - 5 * HOUR, gasSpendWei: 1000n })]);
    expect(await gasOf(ledger)).toBe(1000n);
    expect(await gasOf(ledger)).toBe(1000n); // the second summary reads the kept buckets
  });

  afterEach(() => store.close());

  it('sees an entry this process records back in a kept hour', async () => {
    await ledger.append([anEntry({ stepRunId: 'b.send', recordedAt: NOW - 5 * HOUR + 60_000, gasSpendWei: 20n })]);
    expect(await gasOf(ledger)).toBe(1020n);
  });

  it('sees an entry written back in time by the journal writer of this process', async () => {
    const t = NOW - 6 * HOUR;
    await new KnexJournalWriter(db).append([
      { type: 'run.started', at: iso(t), run_id: 'r1', workflow: 'payouts', session: 'live', trigger: { kind: 'cron' } },
      { type: 'step.started', at: iso(t + 1), run_id: 'r1', step_run_id: 'r1.send', step_id: 'send', step_type: 'send', attempt: 1 },
      { type: 'send.queued', at: iso(t + 2), run_id: 'r1', step_run_id: 'r1.send', send_id: 's1', network: 'sepolia', chain_id: 11155111, relayer: 'ops', to: '0x1', value_wei: '0', idempotency_key: 'k1' },
      { type: 'send.settled', at: iso(t + 3), send_id: 's1', outcome: 'confirmed', tx_hash: aTxHash('back-dated'), receipt: { gasUsed: '3', effectiveGasPrice: '100' } },
    ]);
    expect(await gasOf(ledger)).toBe(1300n);
  });

  it('sees an entry another process wrote back in a kept hour', async () => {
    await new KnexSpendLedger(other).append([anEntry({ stepRunId: 'c.send', recordedAt: NOW - 5 * HOUR + 120_000, gasSpendWei: 7n })]);
    expect(await gasOf(ledger)).toBe(1007n);
  });

  it('is not changed by an entry recorded after the range', async () => {
    await ledger.append([anEntry({ stepRunId: 'd.send', recordedAt: NOW + HOUR, gasSpendWei: 5n })]);
    expect(await gasOf(ledger)).toBe(1000n);
  });
  it('sums the entries at the edges of a range exactly, past 64 bits and past 18 digits', async () => {
    const big = 999_999_999_999_999_999n; // 18 digits: twenty of them overflow a 64-bit sum
    const huge = (1n << 200n) + 12345n;
    const edge = NOW - 10 * 60_000; // inside the open hour: read from the entries themselves
    await ledger.append(Array.from({ length: 20 }, (_, k) => anEntry({ stepRunId: `big-${k}.send`, recordedAt: edge + k, gasSpendWei: big, valueWei: big, reverted: k % 2 === 0 })));
    const [c] = await ledger.totals({ since: edge, until: NOW });
    expect(c!.gasSpendWei).toBe(big * 20n);
    expect(c!.valueWei).toBe(big * 20n);
    expect(c!.revertedGasWei).toBe(big * 10n);
    await ledger.append([anEntry({ stepRunId: 'huge.send', recordedAt: edge + 100, gasSpendWei: huge, valueWei: 1n })]);
    const [d] = await ledger.totals({ since: edge, until: NOW });
    expect(d!.gasSpendWei).toBe(big * 20n + huge);
    expect(d!.valueWei).toBe(big * 20n + 1n);
  });
});
