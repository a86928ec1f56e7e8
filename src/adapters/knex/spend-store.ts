import type { LedgerEntry, PendingReceipt } from '../../domain/spend/ledger-entry';
import type { Knex } from 'knex';
import { chunks, insertRows, MAX_ROWS, selectIn, type Db } from './bulk';
import { dialectOf } from './dialect';
import { bucketOf, GRAINS } from './spend-cover';
import { LIMB_COLUMNS, LIMBS, toLimbs } from './spend-limbs';

type Row = Record<string, unknown>;

export const ENTRY_COLUMNS = [
  'step_run_id', 'tx_hash', 'recorded_at', 'workflow', 'run_id', 'relayer', 'network', 'chain_id',
  'gas_used', 'effective_gas_price', 'gas_spend_wei', 'value_wei', 'reverted',
] as const;

const ROLLUP_KEY = ['grain', 'bucket', 'workflow', 'relayer', 'network'] as const;
const ROLLUP_COLUMNS = [...ROLLUP_KEY, 'tx_count', 'reverted_count', ...LIMB_COLUMNS];
/** The rollup columns that add up: counts and amount limbs. */
export const ROLLUP_SUMS = ['tx_count', 'reverted_count', ...LIMB_COLUMNS];
const ROLLUP_CHUNK = 100_000;

export const entryKey = (e: { stepRunId: string; txHash: string | null }): string => `${e.stepRunId}\n${e.txHash ?? ''}`;

export function entryToRow(e: LedgerEntry): unknown[] {
  return [
    e.stepRunId, e.txHash, e.recordedAt, e.workflow, e.runId, e.relayer, e.network, e.chainId,
    e.gasUsed.toString(), e.effectiveGasPrice.toString(), e.gasSpendWei.toString(), e.valueWei.toString(), e.reverted ? 1 : 0,
  ];
}

export function rowToEntry(r: Row): LedgerEntry {
  return {
    recordedAt: Number(r.recorded_at), workflow: String(r.workflow), runId: String(r.run_id), stepRunId: String(r.step_run_id),
    relayer: String(r.relayer), network: String(r.network), chainId: Number(r.chain_id), txHash: String(r.tx_hash),
    gasUsed: BigInt(r.gas_used as string), effectiveGasPrice: BigInt(r.effective_gas_price as string),
    gasSpendWei: BigInt(r.gas_spend_wei as string), valueWei: BigInt(r.value_wei as string),
    reverted: r.reverted === true || Number(r.reverted) === 1,
  };
}

/** Rollup deltas of a batch of new entries: one row per (grain, bucket, workflow, relayer, network). */
function rollupRows(entries: readonly LedgerEntry[]): unknown[][] {
  const rows = new Map<string, (string | number)[]>();
  const base = ROLLUP_KEY.length + 2;
  for (const e of entries) {
    const gas = toLimbs(e.gasSpendWei);
    const value = toLimbs(e.valueWei);
    const combo = `${e.workflow}\n${e.relayer}\n${e.network}`;
    for (const { grain, size } of GRAINS) {
      const bucket = bucketOf(e.recordedAt, size);
      const key = `${grain}\n${bucket}\n${combo}`;
      let row = rows.get(key);
      if (!row) {
        row = [grain, bucket, e.workflow, e.relayer, e.network, 0, 0, ...new Array<number>(LIMB_COLUMNS.length).fill(0)];
        rows.set(key, row);
      }
      const sums = row as number[];
      sums[5]! += 1;
      if (e.reverted) sums[6]! += 1;
      for (let i = 0; i < LIMBS; i++) {
        sums[base + i]! += gas[i]!;
        sums[base + LIMBS + i]! += value[i]!;
        if (e.reverted) sums[base + 2 * LIMBS + i]! += gas[i]!;
      }
    }
  }
  return [...rows.values()];
}

/**
 * Ledger writes of this process, in order: the earliest `recorded_at` of each. Caches of closed time ranges
 * use it to drop what a later write touched (see KnexSpendLedger). Bounded: a cache entry older than the log
 * is dropped too.
 */
export const ledgerWrites = { seq: 0, log: [] as { seq: number; minAt: number }[] };
const WRITE_LOG = 1000;

function noteWrite(entries: readonly LedgerEntry[]): void {
  let minAt = Infinity;
  for (const e of entries) if (e.recordedAt < minAt) minAt = e.recordedAt;
  ledgerWrites.log.push({ seq: ++ledgerWrites.seq, minAt });
  if (ledgerWrites.log.length > WRITE_LOG) ledgerWrites.log.splice(0, ledgerWrites.log.length - WRITE_LOG);
}

/**
 * Appends ledger entries inside the caller's transaction: entries whose (step_run_id, tx_hash) is already
 * recorded (or repeated within the batch) are skipped, and only the new ones reach the rollups. `stored`: the
 * `entryKey`s already recorded for every step run of `entries`, when the caller read them (the new ones are added);
 * otherwise they are read here.
 */
export async function appendEntries(db: Db, entries: readonly LedgerEntry[], stored?: Set<string>): Promise<{ written: number; duplicates: number }> {
  if (!entries.length) return { written: 0, duplicates: 0 };
  let seen = stored;
  if (!seen) {
    seen = new Set<string>();
    for (const row of await selectIn(db, 'spend_entries', 'step_run_id', new Set(entries.map((e) => e.stepRunId)), 'step_run_id, tx_hash')) {
      seen.add(`${row.step_run_id as string}\n${row.tx_hash as string}`);
    }
  }
  let fresh: LedgerEntry[] = [];
  for (const e of entries) {
    const key = entryKey(e);
    if (seen.has(key)) continue;
    seen.add(key);
    fresh.push(e);
  }
  if (!fresh.length) return { written: 0, duplicates: entries.length };
  // Noted before the write: a cache filled while this transaction is open must not keep the old sums.
  noteWrite(fresh);
  if (dialectOf(db).oneWriter) {
    await insertRows(db, 'spend_entries', ENTRY_COLUMNS, fresh.map(entryToRow), { conflictKey: ['step_run_id', 'tx_hash'], ignoreConflicts: true });
  } else {
    // Several processes may record the same landed send at once (PostgreSQL): both read "not recorded". The insert
    // decides: an entry another transaction holds waits for it and is then skipped, and only the rows this one
    // inserted (RETURNING) reach the rollups. SQLite's one writer makes the read above the decision.
    fresh = await insertReturning(db as Knex | Knex.Transaction, fresh);
    if (!fresh.length) return { written: 0, duplicates: entries.length };
  }
  // Limb sums are added as JS numbers per chunk: exact while a chunk holds fewer than 2^21 entries.
  for (let i = 0; i < fresh.length; i += ROLLUP_CHUNK) {
    await insertRows(db, 'spend_rollups', ROLLUP_COLUMNS, rollupRows(fresh.slice(i, i + ROLLUP_CHUNK)), { conflictKey: ROLLUP_KEY, accumulate: ROLLUP_SUMS });
  }
  return { written: fresh.length, duplicates: entries.length - fresh.length };
}

/** `INSERT … ON CONFLICT DO NOTHING RETURNING` of the entries: the ones this statement inserted. */
async function insertReturning(db: Knex | Knex.Transaction, entries: readonly LedgerEntry[]): Promise<LedgerEntry[]> {
  const inserted = new Set<string>();
  const columns = ENTRY_COLUMNS.map((c) => `"${c}"`).join(',');
  const tuple = `(${ENTRY_COLUMNS.map(() => '?').join(',')})`;
  for (const part of chunks(entries, MAX_ROWS)) {
    const result = (await db.raw(
      `INSERT INTO spend_entries (${columns}) VALUES ${part.map(() => tuple).join(',')} ON CONFLICT (step_run_id, tx_hash) DO NOTHING RETURNING step_run_id, tx_hash`,
      part.flatMap(entryToRow) as Knex.RawBinding[],
    )) as { rows: { step_run_id: string; tx_hash: string | null }[] };
    for (const r of result.rows) inserted.add(entryKey({ stepRunId: r.step_run_id, txHash: r.tx_hash }));
  }
  return entries.filter((e) => inserted.has(entryKey(e)));
}

export function pendingToBody(p: PendingReceipt): string {
  return JSON.stringify({ ...p, valueWei: p.valueWei.toString() });
}

export function bodyToPending(body: string): PendingReceipt {
  const raw = JSON.parse(body) as Omit<PendingReceipt, 'valueWei'> & { valueWei: string };
  return { ...raw, valueWei: BigInt(raw.valueWei) };
}

/** Records receipt reads still owed, inside the caller's transaction (a read already owed stays as it is). */
export async function addPending(db: Db, pending: readonly PendingReceipt[]): Promise<void> {
  const rows = pending.map((p) => [p.stepRunId, p.txHash ?? '', p.recordedAt, pendingToBody(p), 'pending', null]);
  await insertRows(db, 'spend_pending', ['step_run_id', 'tx_hash', 'recorded_at', 'body', 'state', 'error'], rows, {
    conflictKey: ['step_run_id', 'tx_hash'], ignoreConflicts: true,
  });
}

