import { prng } from '../../src/application/journal/sample-journal';
import { PruneHistory } from '../../src/application/history/prune-history.use-case';
import type { JournalWriter } from '../../src/application/ports/journal-writer';
import type { RetentionRepository } from '../../src/application/ports/retention-repository';
import type { RunRepository } from '../../src/application/ports/run-repository';
import type { PendingReceipts, SpendFilter, SpendLedger } from '../../src/application/ports/spend-ledger';
import { JournalRejectedError } from '../../src/domain/errors';
import type { JournalEvent, Receipt, SendOutcome, SessionKind } from '../../src/domain/journal/journal-event';
import { completeEntry, MAX_UINT256, type LedgerEntry, type PendingReceipt } from '../../src/domain/spend/ledger-entry';
import { zeroTotals, type ComboTotals } from '../../src/domain/spend/spend-totals';
import { FixedClock } from '../fakes/fixed-clock';
import { matchesSpendFilter } from '../fakes/in-memory-spend';
import { aTxHash, DAY, HOUR, iso, MINUTE, SECOND, T0 } from '../mothers/journal-events';

/** The ports the spend ledger lives with: the ledger, the journal that feeds it, retention. */
export interface SpendStorage {
  readonly ledger: SpendLedger & PendingReceipts;
  readonly journal: JournalWriter & RunRepository;
  readonly retention: RetentionRepository;
}

export interface OpenSpend extends SpendStorage {
  /** The same storage opened again, as a restarted process would (knex: a new connection to the same file). */
  reopen(): Promise<SpendStorage>;
  close(): Promise<void>;
}

/** A ledger entry with readable defaults. */
export function anEntry(overrides: Partial<LedgerEntry> & { stepRunId: string }): LedgerEntry {
  const gasSpendWei = overrides.gasSpendWei ?? 21_000n * 1_000_000_000n;
  return {
    recordedAt: T0, workflow: 'payouts', runId: overrides.stepRunId.split('.')[0]!, relayer: 'ops', network: 'sepolia',
    chainId: 11155111, txHash: aTxHash(overrides.stepRunId), gasUsed: 1n, effectiveGasPrice: gasSpendWei, gasSpendWei,
    valueWei: 0n, reverted: false, ...overrides,
  };
}

export interface LandedSendSpec {
  readonly runId: string;
  /** run.started time; the send's events follow one second apart (settle at `at + 4 s`). */
  readonly at?: number;
  readonly workflow?: string;
  readonly session?: SessionKind;
  readonly relayer?: string;
  readonly network?: string;
  readonly valueWei?: string;
  readonly outcome?: SendOutcome;
  /** The settle's receipt; null: none. Default 21000 gas at 1 gwei. */
  readonly receipt?: Receipt | null;
  readonly txHash?: string;
}

/** run.started, step.started, send.queued, send.submitted, send.settled of one send. */
export function landedSend(spec: LandedSendSpec): JournalEvent[] {
  const at = spec.at ?? T0;
  const runId = spec.runId;
  const stepRunId = `${runId}.pay`;
  const sendId = `${runId}.send`;
  const txHash = spec.txHash ?? aTxHash(runId);
  const receipt = spec.receipt === undefined ? { gasUsed: '21000', effectiveGasPrice: '1000000000' } : spec.receipt;
  return [
    { type: 'run.started', at: iso(at), run_id: runId, workflow: spec.workflow ?? 'payouts', session: spec.session ?? 'live',
      ...(spec.session && spec.session !== 'live' ? { session_id: `${runId}.session` } : {}), trigger: { kind: 'cron' } },
    { type: 'step.started', at: iso(at + SECOND), run_id: runId, step_run_id: stepRunId, step_id: 'pay', step_type: 'send', attempt: 1 },
    { type: 'send.queued', at: iso(at + 2 * SECOND), run_id: runId, step_run_id: stepRunId, send_id: sendId, network: spec.network ?? 'sepolia',
      chain_id: 11155111, relayer: spec.relayer ?? 'ops', to: '0x000000000000000000000000000000000000beef', value_wei: spec.valueWei ?? '1000',
      idempotency_key: `${runId}:pay` },
    { type: 'send.submitted', at: iso(at + 3 * SECOND), send_id: sendId, tx_hash: txHash, nonce: 1 },
    { type: 'send.settled', at: iso(at + 4 * SECOND), send_id: sendId, outcome: spec.outcome ?? 'confirmed', tx_hash: txHash,
      ...(receipt ? { receipt } : {}) },
  ];
}

/** Every entry of a filter, oldest first, through `scan`. */
export async function scanAll(ledger: SpendLedger, filter: SpendFilter = {}, pageSize = 100): Promise<LedgerEntry[]> {
  const out: LedgerEntry[] = [];
  for await (const page of ledger.scan(filter, pageSize)) out.push(...page);
  return out;
}

/** Totals per combination the slow, obviously right way: BigInt sums over every entry. */
export function bruteTotals(entries: readonly LedgerEntry[], filter: SpendFilter): ComboTotals[] {
  const combos = new Map<string, ComboTotals>();
  for (const e of entries) {
    if (!matchesSpendFilter(e, filter)) continue;
    const key = `${e.workflow}\n${e.relayer}\n${e.network}`;
    const c = combos.get(key) ?? combos.set(key, { workflow: e.workflow, relayer: e.relayer, network: e.network, ...zeroTotals() }).get(key)!;
    c.txCount += 1;
    c.gasSpendWei += e.gasSpendWei;
    c.valueWei += e.valueWei;
    if (e.reverted) {
      c.revertedCount += 1;
      c.revertedGasWei += e.gasSpendWei;
    }
  }
  return sortCombos([...combos.values()]);
}

const sortCombos = (combos: ComboTotals[]): ComboTotals[] =>
  combos.map((c) => ({ ...c })).sort((a, b) => `${a.workflow}\n${a.relayer}\n${a.network}`.localeCompare(`${b.workflow}\n${b.relayer}\n${b.network}`));

const key = (e: LedgerEntry): string => `${e.stepRunId} ${e.txHash}`;

/** What every implementation of the spend ledger (and of its neighbours) must do: the knex adapter and the fakes. */
export function spendContract(name: string, open: () => Promise<OpenSpend>): void {
  describe(`spend ledger contract: ${name}`, () => {
    let s: OpenSpend;
    beforeEach(async () => {
      s = await open();
    });
    afterEach(async () => s.close());

    describe('append', () => {
      it('keeps every field of an entry exactly, beyond 64 bits', async () => {
        const e = anEntry({
          stepRunId: 'r1.pay', recordedAt: T0 + 123, workflow: 'relayers.topup', relayer: 'treasury', network: 'base', chainId: 8453,
          gasUsed: (1n << 100n) + 1n, effectiveGasPrice: (1n << 120n) + 7n, gasSpendWei: MAX_UINT256, valueWei: MAX_UINT256 - 1n, reverted: false,
        });
        const reverted = anEntry({ stepRunId: 'r2.pay', reverted: true, gasSpendWei: 0n });
        expect(await s.ledger.append([e, reverted])).toEqual({ written: 2, duplicates: 0 });
        expect(await scanAll(s.ledger)).toEqual([reverted, e]);
      });

      it('is idempotent by (step_run_id, tx_hash): the same batch again writes nothing', async () => {
        const batch = [anEntry({ stepRunId: 'a.pay', recordedAt: T0 }), anEntry({ stepRunId: 'b.pay', recordedAt: T0 + 1 })];
        expect(await s.ledger.append(batch)).toEqual({ written: 2, duplicates: 0 });
        expect(await s.ledger.append(batch)).toEqual({ written: 0, duplicates: 2 });
        expect(await scanAll(s.ledger)).toEqual(batch);
        expect((await s.ledger.totals({})).map((c) => c.txCount)).toEqual([2]);
      });

      it('counts duplicates within one batch, and keeps the first of a key', async () => {
        const first = anEntry({ stepRunId: 'c.pay', gasSpendWei: 5n });
        const sameKey = { ...first, gasSpendWei: 999n, recordedAt: T0 + HOUR };
        const other = anEntry({ stepRunId: 'd.pay', gasSpendWei: 7n });
        expect(await s.ledger.append([first, sameKey, other, first])).toEqual({ written: 2, duplicates: 2 });
        expect(await s.ledger.append([sameKey, anEntry({ stepRunId: 'e.pay', gasSpendWei: 1n })])).toEqual({ written: 1, duplicates: 1 });
        expect((await scanAll(s.ledger)).map((e) => [e.stepRunId, e.gasSpendWei])).toEqual([['c.pay', 5n], ['d.pay', 7n], ['e.pay', 1n]]);
        const [total] = await s.ledger.totals({});
        expect(total).toMatchObject({ txCount: 3, gasSpendWei: 13n });
      });

      it('keys on the tx hash too: another transaction of the same step run is another entry', async () => {
        const a = anEntry({ stepRunId: 'f.pay', txHash: aTxHash('first') });
        const b = anEntry({ stepRunId: 'f.pay', txHash: aTxHash('second') });
        expect(await s.ledger.append([a, b])).toEqual({ written: 2, duplicates: 0 });
        expect(await s.ledger.append([b])).toEqual({ written: 0, duplicates: 1 });
      });

      it('appends all or nothing: an amount outside uint256 rejects the batch', async () => {
        const ok = anEntry({ stepRunId: 'g.pay' });
        const bad = anEntry({ stepRunId: 'h.pay', gasSpendWei: MAX_UINT256 + 1n });
        await expect(s.ledger.append([ok, bad])).rejects.toThrow();
        expect(await scanAll(s.ledger)).toEqual([]);
        expect(await s.ledger.totals({})).toEqual([]);
        expect(await s.ledger.append([ok])).toEqual({ written: 1, duplicates: 0 });
      });

      it('writes nothing for an empty batch', async () => {
        expect(await s.ledger.append([])).toEqual({ written: 0, duplicates: 0 });
        expect(await s.ledger.totals({})).toEqual([]);
      });
    });

    describe('totals', () => {
      it('equal a brute-force BigInt sum for random filters and time bounds crossing hours, days and months', async () => {
        const rand = prng(424242);
        const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
        const WORKFLOWS = ['payouts', 'keeper', 'relayers.topup'];
        const RELAYERS = ['ops', 'treasury', 'hot'];
        const NETWORKS = ['sepolia', 'base'];
        const START = T0 - 40 * DAY;
        const SPAN = 80 * DAY;
        const amount = (): bigint => {
          switch (Math.floor(rand() * 4)) {
            case 0: return BigInt(Math.floor(rand() * 2 ** 32));
            case 1: return (1n << 64n) + BigInt(Math.floor(rand() * 2 ** 40));
            case 2: return (1n << 255n) - BigInt(Math.floor(rand() * 2 ** 52)) * (1n << 100n);
            default: return MAX_UINT256 - BigInt(Math.floor(rand() * 2 ** 52));
          }
        };
        const entries: LedgerEntry[] = [];
        for (let i = 0; i < 400; i++) {
          // Times cluster on hour and day boundaries (exactly on them, and 1 ms either side) as well as anywhere.
          const base = START + Math.floor(rand() * (SPAN / HOUR)) * HOUR;
          const recordedAt = pick([base, base - 1, base + 1, base - (base % DAY), base + Math.floor(rand() * HOUR), START + Math.floor(rand() * SPAN)]);
          const reverted = rand() < 0.25;
          entries.push(anEntry({
            stepRunId: `t${i}.pay`, recordedAt, workflow: pick(WORKFLOWS), relayer: pick(RELAYERS), network: pick(NETWORKS),
            gasSpendWei: amount(), valueWei: reverted ? 0n : amount(), reverted,
          }));
        }
        // In batches of random sizes, so that rollup rows accumulate across appends.
        for (let i = 0; i < entries.length;) {
          const n = 1 + Math.floor(rand() * 60);
          await s.ledger.append(entries.slice(i, i + n));
          i += n;
        }

        const bound = (): number | undefined => {
          if (rand() < 0.2) return undefined;
          const e = pick(entries).recordedAt;
          const h = START + Math.floor(rand() * (SPAN / HOUR)) * HOUR;
          return pick([e, e - 1, e + 1, h, h - 1, h + 1, h - (h % DAY), START + Math.floor(rand() * SPAN)]);
        };
        const names = <T>(all: readonly T[]): T[] | undefined => {
          const r = rand();
          if (r < 0.5) return undefined;
          if (r < 0.55) return [];
          return all.filter(() => rand() < 0.5);
        };
        const sumOf = (combos: ComboTotals[]): bigint => combos.reduce((acc, c) => acc + c.gasSpendWei, 0n);
        expect(sumOf(bruteTotals(entries, {})) > MAX_UINT256).toBe(true);

        const filters: SpendFilter[] = [{}, { since: START - DAY }, { until: START + SPAN + DAY }, { since: T0, until: T0 }];
        for (let i = 0; i < 80; i++) {
          let since = bound();
          let until = bound();
          if (since !== undefined && until !== undefined && since > until && rand() < 0.8) [since, until] = [until, since];
          filters.push({ workflows: names(WORKFLOWS), relayers: names(RELAYERS), networks: names(NETWORKS), since, until });
        }
        for (const filter of filters) {
          const expected = bruteTotals(entries, filter);
          const actual = sortCombos(await s.ledger.totals(filter));
          if (JSON.stringify(actual, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) !== JSON.stringify(expected, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))) {
            expect({ filter, actual }).toEqual({ filter, actual: expected });
          }
        }
      });

      it('bound since and until inclusively', async () => {
        await s.ledger.append([
          anEntry({ stepRunId: 'a.pay', recordedAt: T0 - 1, gasSpendWei: 1n }),
          anEntry({ stepRunId: 'b.pay', recordedAt: T0, gasSpendWei: 10n }),
          anEntry({ stepRunId: 'c.pay', recordedAt: T0 + HOUR, gasSpendWei: 100n }),
          anEntry({ stepRunId: 'd.pay', recordedAt: T0 + HOUR + 1, gasSpendWei: 1000n }),
        ]);
        const gas = async (f: SpendFilter): Promise<bigint> => (await s.ledger.totals(f)).reduce((a, c) => a + c.gasSpendWei, 0n);
        expect(await gas({ since: T0, until: T0 + HOUR })).toBe(110n);
        expect(await gas({ since: T0 })).toBe(1110n);
        expect(await gas({ until: T0 })).toBe(11n);
        expect(await gas({ since: T0 + 1, until: T0 + HOUR - 1 })).toBe(0n);
        expect(await s.ledger.totals({ since: T0 + 2 * HOUR })).toEqual([]);
      });

      it('count reverted sends and their gas apart', async () => {
        await s.ledger.append([
          anEntry({ stepRunId: 'a.pay', gasSpendWei: 5n, valueWei: 7n }),
          anEntry({ stepRunId: 'b.pay', gasSpendWei: 11n, valueWei: 0n, reverted: true }),
          anEntry({ stepRunId: 'c.pay', gasSpendWei: 13n, valueWei: 0n, reverted: true }),
        ]);
        expect(await s.ledger.totals({})).toEqual([{
          workflow: 'payouts', relayer: 'ops', network: 'sepolia', txCount: 3, gasSpendWei: 29n, valueWei: 7n, revertedCount: 2, revertedGasWei: 24n,
        }]);
      });
    });

    describe('latest and scan', () => {
      const spread = (n: number): LedgerEntry[] => Array.from({ length: n }, (_, i) => anEntry({
        stepRunId: `s${String(i).padStart(3, '0')}.pay`, recordedAt: T0 + ((i * 7919) % n) * 17 * MINUTE,
        workflow: i % 3 === 0 ? 'keeper' : 'payouts', relayer: i % 2 ? 'ops' : 'treasury', gasSpendWei: BigInt(i + 1),
      }));
      const byTime = (entries: LedgerEntry[]): LedgerEntry[] => [...entries].sort((a, b) => a.recordedAt - b.recordedAt);

      it('gives the newest entries first, at most limit, within the filter', async () => {
        const entries = spread(60);
        await s.ledger.append(entries.slice(0, 25));
        await s.ledger.append(entries.slice(25));
        expect((await s.ledger.latest({}, 10)).map(key)).toEqual(byTime(entries).reverse().slice(0, 10).map(key));
        expect((await s.ledger.latest({}, 500)).map(key)).toEqual(byTime(entries).reverse().map(key));
        const filter: SpendFilter = { workflows: ['payouts'], relayers: ['ops'], since: T0 + 3 * HOUR, until: T0 + 12 * HOUR };
        const expected = byTime(entries.filter((e) => matchesSpendFilter(e, filter))).reverse();
        expect(expected.length).toBeGreaterThan(3);
        expect(await s.ledger.latest(filter, 3)).toEqual(expected.slice(0, 3));
        expect(await s.ledger.latest(filter, 100)).toEqual(expected);
        expect(await s.ledger.latest({}, 0)).toEqual([]);
        expect(await s.ledger.latest({ workflows: ['nope'] }, 10)).toEqual([]);
      });

      it('yields every filtered entry oldest first, in pages', async () => {
        const entries = spread(50);
        await s.ledger.append(entries);
        const pages: LedgerEntry[][] = [];
        for await (const page of s.ledger.scan({}, 7)) pages.push(page);
        expect(pages.map((p) => p.length)).toEqual([7, 7, 7, 7, 7, 7, 7, 1]);
        expect(pages.flat()).toEqual(byTime(entries));

        const filter: SpendFilter = { relayers: ['treasury'], since: T0 + HOUR };
        const expected = byTime(entries.filter((e) => matchesSpendFilter(e, filter)));
        expect(await scanAll(s.ledger, filter, 4)).toEqual(expected);
        expect(await scanAll(s.ledger, filter, expected.length)).toEqual(expected);
        expect(await scanAll(s.ledger, { networks: ['base'] }, 5)).toEqual([]);
      });

      it('orders entries recorded at the same instant the same way in both (latest is scan reversed)', async () => {
        const same = Array.from({ length: 9 }, (_, i) => anEntry({ stepRunId: `z${(i * 5) % 9}.pay`, recordedAt: T0 }));
        await s.ledger.append(same.slice(0, 4));
        await s.ledger.append(same.slice(4));
        await s.ledger.append([anEntry({ stepRunId: 'early.pay', recordedAt: T0 - 1 }), anEntry({ stepRunId: 'late.pay', recordedAt: T0 + 1 })]);
        const scanned = (await scanAll(s.ledger, {}, 2)).map(key);
        expect(scanned[0]).toBe(key(anEntry({ stepRunId: 'early.pay' })));
        expect(scanned[scanned.length - 1]).toBe(key(anEntry({ stepRunId: 'late.pay' })));
        expect((await s.ledger.latest({}, 100)).map(key)).toEqual([...scanned].reverse());
        // Paging through ties neither skips nor repeats an entry.
        expect(new Set(scanned).size).toBe(11);
      });
    });

    describe('the journal writer feeds the ledger', () => {
      it('writes exactly one entry for a landed send, recorded at the settle event', async () => {
        const events = landedSend({ runId: 'j1', at: T0, valueWei: '5000', receipt: { gasUsed: '0x5208', effectiveGasPrice: '1500000000', l1Fee: '77' } });
        const settleAt = Date.parse(events[4]!.at);
        await s.journal.append(events);
        expect(await scanAll(s.ledger)).toEqual([{
          recordedAt: settleAt, workflow: 'payouts', runId: 'j1', stepRunId: 'j1.pay', relayer: 'ops', network: 'sepolia', chainId: 11155111,
          txHash: aTxHash('j1'), gasUsed: 21000n, effectiveGasPrice: 1_500_000_000n, gasSpendWei: 21000n * 1_500_000_000n + 77n,
          valueWei: 5000n, reverted: false,
        }]);
        expect(await s.ledger.pending(10)).toEqual([]);
      });

      it('writes no second entry when the same events are appended again', async () => {
        const events = landedSend({ runId: 'j2' });
        await s.journal.append(events);
        expect(await s.journal.append(events)).toEqual({ applied: 0, duplicates: events.length });
        await s.journal.append(events.slice(3));
        expect(await scanAll(s.ledger)).toHaveLength(1);
        expect((await s.ledger.totals({}))[0]).toMatchObject({ txCount: 1, gasSpendWei: 21000n * 1_000_000_000n });
      });

      it('does not double count a second, different settle of the same send and tx hash', async () => {
        const events = landedSend({ runId: 'j3', at: T0 });
        await s.journal.append(events);
        const again: JournalEvent = { type: 'send.settled', at: iso(T0 + 2 * HOUR), send_id: 'j3.send', outcome: 'confirmed', tx_hash: aTxHash('j3'),
          receipt: { gasUsed: '50000', effectiveGasPrice: '9' } };
        expect(await s.journal.append([again])).toEqual({ applied: 1, duplicates: 0 });
        const oneBatch = landedSend({ runId: 'j4', at: T0 });
        await s.journal.append([...oneBatch, { ...again, send_id: 'j4.send', tx_hash: aTxHash('j4') }]);
        const entries = await scanAll(s.ledger);
        expect(entries.map((e) => [e.stepRunId, e.recordedAt, e.gasSpendWei])).toEqual([
          ['j3.pay', T0 + 4 * SECOND, 21000n * 1_000_000_000n], ['j4.pay', T0 + 4 * SECOND, 21000n * 1_000_000_000n],
        ]);
        expect((await s.ledger.totals({}))[0]!.txCount).toBe(2);
      });

      it('records a reverted send with value 0, an expired one\'s landed cancel with value 0, and nothing for a send that never landed or a replay', async () => {
        await s.journal.append([
          ...landedSend({ runId: 'rv', at: T0, outcome: 'reverted', valueWei: '999' }),
          ...landedSend({ runId: 'dr', at: T0, outcome: 'dropped' }),
          ...landedSend({ runId: 'ex', at: T0, outcome: 'expired', valueWei: '5' }),
          ...landedSend({ runId: 'ew', at: T0, outcome: 'expired', receipt: null }),
          ...landedSend({ runId: 'rp', at: T0, outcome: 'replaced' }),
          ...landedSend({ runId: 'rs', at: T0, session: 'replay' }),
          ...landedSend({ runId: 'ts', at: T0, session: 'test', receipt: null }),
        ]);
        expect((await scanAll(s.ledger)).map((e) => [e.runId, e.reverted, e.valueWei]).sort()).toEqual([['ex', false, 0n], ['rv', true, 0n]]);
        expect(await s.ledger.totals({})).toEqual([expect.objectContaining({ txCount: 2, revertedCount: 1, revertedGasWei: 21000n * 1_000_000_000n, valueWei: 0n })]);
        expect(await s.ledger.counts()).toEqual({ pending: 0, gaps: 0 });
      });

      it('leaves a pending read for a settle without gas numbers, which a restart still finds', async () => {
        const events = landedSend({ runId: 'p1', at: T0, valueWei: '321', receipt: { status: 1, blockNumber: '0x10' } });
        await s.journal.append(events);
        expect(await scanAll(s.ledger)).toEqual([]);
        expect(await s.ledger.counts()).toEqual({ pending: 1, gaps: 0 });
        // A "crash": the drain never ran. What a restarted process sees:
        const after = await s.reopen();
        const owed = await after.ledger.pending(10);
        expect(owed).toEqual([{
          recordedAt: T0 + 4 * SECOND, workflow: 'payouts', runId: 'p1', stepRunId: 'p1.pay', relayer: 'ops', network: 'sepolia',
          chainId: 11155111, txHash: aTxHash('p1'), valueWei: 321n, reverted: false,
        }]);
        await after.journal.append(events);
        expect(await after.ledger.counts()).toEqual({ pending: 1, gaps: 0 });
        const entry = completeEntry(owed[0]!, { gasUsed: '21000', effectiveGasPrice: '2' })!;
        await after.ledger.complete(owed[0]!, entry);
        expect(await scanAll(after.ledger)).toEqual([entry]);
        expect(await after.ledger.pending(10)).toEqual([]);
      });

      it('writes the ledger in the same transaction as the events: a rejected batch leaves neither entry nor pending read', async () => {
        const batch: JournalEvent[] = [
          ...landedSend({ runId: 'x1' }),
          ...landedSend({ runId: 'x2', receipt: null }),
          { type: 'send.submitted', at: iso(T0), send_id: 'never-queued', tx_hash: aTxHash('nq') },
        ];
        await expect(s.journal.append(batch)).rejects.toThrow(JournalRejectedError);
        expect(await scanAll(s.ledger)).toEqual([]);
        expect(await s.ledger.counts()).toEqual({ pending: 0, gaps: 0 });
        expect(await s.journal.get('x1')).toBeUndefined();
      });

      it('leaves the ledger untouched when old runs are pruned', async () => {
        await s.journal.append([
          ...landedSend({ runId: 'old-1', at: T0 - 30 * DAY }),
          ...landedSend({ runId: 'old-2', at: T0 - 20 * DAY, receipt: null }),
          ...landedSend({ runId: 'new-1', at: T0 }),
        ]);
        const entriesBefore = await scanAll(s.ledger);
        const totalsBefore = sortCombos(await s.ledger.totals({}));
        const pendingBefore = await s.ledger.pending(10);
        expect(entriesBefore).toHaveLength(2);
        const report = await new PruneHistory(s.retention, new FixedClock(T0)).execute('10d', false);
        expect(report.runs).toBe(2);
        expect(await s.journal.get('old-1')).toBeUndefined();
        expect(await scanAll(s.ledger)).toEqual(entriesBefore);
        expect(sortCombos(await s.ledger.totals({}))).toEqual(totalsBefore);
        expect(await s.ledger.totals({ since: T0 - 31 * DAY, until: T0 - 29 * DAY })).toEqual([expect.objectContaining({ txCount: 1 })]);
        expect(await s.ledger.pending(10)).toEqual(pendingBefore);
        expect(await s.ledger.latest({}, 10)).toHaveLength(2);
      });
    });

    describe('pending receipt reads', () => {
      it('records a completed read once, even when completed twice', async () => {
        await s.journal.append(landedSend({ runId: 'c1', receipt: null, valueWei: '10' }));
        const [p] = await s.ledger.pending(10);
        const entry = completeEntry(p!, { gasUsed: '100', effectiveGasPrice: '3' })!;
        await s.ledger.complete(p!, entry);
        await s.ledger.complete(p!, entry);
        expect(await scanAll(s.ledger)).toEqual([entry]);
        expect((await s.ledger.totals({}))[0]).toMatchObject({ txCount: 1, gasSpendWei: 300n, valueWei: 10n });
        expect(await s.ledger.counts()).toEqual({ pending: 0, gaps: 0 });
      });

      it('counts a failed read as a gap and offers it no more', async () => {
        await s.journal.append([...landedSend({ runId: 'f1', receipt: null, at: T0 }), ...landedSend({ runId: 'f2', receipt: null, at: T0 + HOUR })]);
        const owed = await s.ledger.pending(10);
        expect(owed.map((p) => p.runId)).toEqual(['f1', 'f2']);
        await s.ledger.fail(owed[0]!, 'no provider answered');
        expect(await s.ledger.counts()).toEqual({ pending: 1, gaps: 1 });
        expect((await s.ledger.pending(10)).map((p) => p.runId)).toEqual(['f2']);
        expect(await scanAll(s.ledger)).toEqual([]);
        // Another settle of the same send and tx hash, again without gas numbers, does not revive the failed read.
        await s.journal.append([{ type: 'send.settled', at: iso(T0 + DAY), send_id: 'f1.send', outcome: 'confirmed', tx_hash: aTxHash('f1') }]);
        expect(await s.ledger.counts()).toEqual({ pending: 1, gaps: 1 });
        expect((await s.ledger.pending(10)).map((p) => p.runId)).toEqual(['f2']);
      });

      it('offers the oldest reads first, at most limit', async () => {
        await s.journal.append([
          ...landedSend({ runId: 'o3', receipt: null, at: T0 + 2 * HOUR }),
          ...landedSend({ runId: 'o1', receipt: null, at: T0 }),
          ...landedSend({ runId: 'o2', receipt: null, at: T0 + HOUR }),
        ]);
        expect((await s.ledger.pending(2)).map((p) => p.runId)).toEqual(['o1', 'o2']);
        expect(await s.ledger.counts()).toEqual({ pending: 3, gaps: 0 });
      });

      it('hands each read to one drain at a time: others take what nobody holds, or what is held no more', async () => {
        await s.journal.append([
          ...landedSend({ runId: 'c1', receipt: null, at: T0 }), ...landedSend({ runId: 'c2', receipt: null, at: T0 + HOUR }),
          ...landedSend({ runId: 'c3', receipt: null, at: T0 + 2 * HOUR }),
        ]);
        // Real time: on PostgreSQL a claim runs out on the database's clock.
        const now = Date.now();
        const ids = (owed: readonly PendingReceipt[]): string[] => owed.map((p) => p.runId);
        const held = await s.ledger.claim('a', now, now + 60_000, 2);
        expect(ids(held)).toEqual(['c1', 'c2']);
        expect(ids(await s.ledger.claim('b', now, now + 60_000, 10))).toEqual(['c3']);
        expect(await s.ledger.claim('c', now, now + 60_000, 10)).toEqual([]);
        expect(ids(await s.ledger.claim('a', now, now + 60_000, 10))).toEqual(['c1', 'c2']);
        await s.ledger.complete(held[0]!, completeEntry(held[0]!, { gasUsed: '2', effectiveGasPrice: '3' })!);
        await s.ledger.fail(held[1]!, 'no provider answered');
        expect(ids(await s.ledger.pending(10))).toEqual(['c3']);
        expect(ids(await s.ledger.claim('b', Date.now(), Date.now() + 1, 10))).toEqual(['c3']);
        await new Promise((resolve) => setTimeout(resolve, 30));
        expect(ids(await s.ledger.claim('c', Date.now(), Date.now() + 60_000, 10))).toEqual(['c3']);
        expect(await s.ledger.counts()).toEqual({ pending: 1, gaps: 1 });
      });

      it('keeps a reverted send reverted through the pending read', async () => {
        await s.journal.append(landedSend({ runId: 'rvp', outcome: 'reverted', receipt: null, valueWei: '55' }));
        const [p] = await s.ledger.pending(1);
        expect(p).toMatchObject({ reverted: true, valueWei: 55n });
        await s.ledger.complete(p!, completeEntry(p!, { gasUsed: '2', gasPrice: '2' })!);
        expect((await s.ledger.totals({}))[0]).toMatchObject({ revertedCount: 1, revertedGasWei: 4n, valueWei: 0n });
      });
    });
  });
}
