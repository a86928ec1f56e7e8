import type { LedgerChange, LedgerEntry, LedgerReorg, PendingReceipt } from '../../domain/spend/ledger-entry';
import type { Knex } from 'knex';
import { chunks, execute, inKeyOrder, insertRows, MAX_ROWS, selectIn, type Db } from './bulk';
import { dialectOf, isWriteSession } from './dialect';
import { bucketOf, GRAINS } from './spend-cover';
import { LIMB_COLUMNS, LIMBS, toLimbs } from './spend-limbs';

type Row = Record<string, unknown>;

export const ENTRY_COLUMNS = [
  'step_run_id', 'tx_hash', 'recorded_at', 'workflow', 'run_id', 'relayer', 'network', 'chain_id',
  'gas_used', 'effective_gas_price', 'gas_spend_wei', 'value_wei', 'reverted', 'block_number', 'block_hash',
] as const;
/** The ledger's key among the entries that count (`reorged_at` 0; see migration 0022). */
const ENTRY_KEY = ['step_run_id', 'tx_hash', 'reorged_at'] as const;
/** SQL condition of the entries that count in sums (a reorged entry stays, and counts in none). */
export const COUNTING = 'reorged_at = 0';

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
    e.blockNumber === undefined || e.blockNumber === null ? null : Number(e.blockNumber), e.blockHash ?? null,
  ];
}

export function rowToEntry(r: Row): LedgerEntry {
  return {
    recordedAt: Number(r.recorded_at), workflow: String(r.workflow), runId: String(r.run_id), stepRunId: String(r.step_run_id),
    relayer: String(r.relayer), network: String(r.network), chainId: Number(r.chain_id), txHash: String(r.tx_hash),
    gasUsed: BigInt(r.gas_used as string), effectiveGasPrice: BigInt(r.effective_gas_price as string),
    gasSpendWei: BigInt(r.gas_spend_wei as string), valueWei: BigInt(r.value_wei as string),
    reverted: r.reverted === true || Number(r.reverted) === 1,
    // Absent when unknown, `reorged` only when true: an entry reads back as it was appended.
    ...(r.block_number === null || r.block_number === undefined ? {} : { blockNumber: BigInt(String(r.block_number)) }),
    ...(r.block_hash === null || r.block_hash === undefined ? {} : { blockHash: String(r.block_hash) }),
    ...(Number(r.reorged_at) > 0 ? { reorged: true } : {}),
  };
}

/**
 * Rollup deltas of a batch of new entries: one row per (grain, bucket, workflow, relayer, network). `sign` -1: the
 * deltas that take those entries out again (each limb sum less exactly what the entry added to it).
 */
function rollupRows(entries: readonly LedgerEntry[], sign: 1 | -1 = 1): unknown[][] {
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
      sums[5]! += sign;
      if (e.reverted) sums[6]! += sign;
      for (let i = 0; i < LIMBS; i++) {
        sums[base + i]! += sign * gas[i]!;
        sums[base + LIMBS + i]! += sign * value[i]!;
        if (e.reverted) sums[base + 2 * LIMBS + i]! += sign * gas[i]!;
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
    for (const row of await selectIn(db, 'spend_entries', 'step_run_id', new Set(entries.map((e) => e.stepRunId)), 'step_run_id, tx_hash, reorged_at')) {
      if (Number(row.reorged_at) === 0) seen.add(`${row.step_run_id as string}\n${row.tx_hash as string}`);
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
    await insertRows(db, 'spend_entries', ENTRY_COLUMNS, fresh.map(entryToRow), { conflictKey: ENTRY_KEY, ignoreConflicts: true });
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
  // In key order, as insertRows does: two processes recording the same landed sends take their keys in one order.
  const ordered = inKeyOrder(entries.map(entryToRow), [ENTRY_COLUMNS.indexOf('step_run_id'), ENTRY_COLUMNS.indexOf('tx_hash')]);
  for (const part of chunks(ordered, MAX_ROWS)) {
    const result = (await db.raw(
      `INSERT INTO spend_entries (${columns}) VALUES ${part.map(() => tuple).join(',')} ON CONFLICT (${ENTRY_KEY.join(', ')}) DO NOTHING RETURNING step_run_id, tx_hash`,
      part.flat() as Knex.RawBinding[],
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


/** The rows a statement with RETURNING gives back, on knex or a write session. */
async function returning(db: Db, sql: string, bindings: readonly unknown[]): Promise<Row[]> {
  if (isWriteSession(db)) return db.select(sql, bindings);
  const result = (await (db as Knex | Knex.Transaction).raw(sql, bindings as Knex.RawBinding[])) as unknown;
  return Array.isArray(result) ? (result as Row[]) : (result as { rows: Row[] }).rows;
}

/**
 * Takes a reorged landing out of every sum (CONTRACT 8.6), inside the caller's transaction: its entry that counts (of
 * the removed block, or one that named no block) is marked, and its amounts come off the rollups; a receipt read still
 * owed for it is dropped (the send is no longer settled). Once only: a marked entry is not taken again. The entries
 * marked.
 */
export async function reorgEntry(db: Db, reorg: LedgerReorg): Promise<LedgerEntry[]> {
  const rows = await returning(db,
    `UPDATE spend_entries SET reorged_at = ? WHERE step_run_id = ? AND tx_hash = ? AND ${COUNTING} AND (block_hash IS NULL OR block_hash = ?) RETURNING *`,
    [Math.max(1, reorg.at), reorg.stepRunId, reorg.txHash, reorg.removedBlockHash.toLowerCase()]);
  await execute(db, 'DELETE FROM spend_pending WHERE step_run_id = ? AND tx_hash = ?', [reorg.stepRunId, reorg.txHash]);
  const entries = rows.map(rowToEntry);
  if (!entries.length) return [];
  // Noted as a write back in time: a cached rollup part that holds these entries is read again.
  noteWrite(entries);
  await insertRows(db, 'spend_rollups', ROLLUP_COLUMNS, rollupRows(entries, -1), { conflictKey: ROLLUP_KEY, accumulate: ROLLUP_SUMS });
  return entries;
}

/**
 * An append's ledger changes in their order, inside the caller's transaction: entries (see appendEntries) and reorged
 * landings (see reorgEntry), so that a transaction settled, reorged and settled again in one batch keeps its second
 * entry. `stored`: as for appendEntries (a reorged entry's key leaves it).
 */
export async function writeLedgerChanges(db: Db, changes: readonly LedgerChange[], stored?: Set<string>): Promise<void> {
  let entries: LedgerEntry[] = [];
  for (const change of changes) {
    if (change.kind === 'entry') entries.push(change.entry);
    if (change.kind !== 'reorged') continue;
    await appendEntries(db, entries, stored);
    entries = [];
    await reorgEntry(db, change.reorg);
    stored?.delete(entryKey(change.reorg));
  }
  await appendEntries(db, entries, stored);
}
