import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import type { NonceAllocator, NonceLane, SignedPurpose, SignedRecord } from '../../application/ports/nonce-allocator';
import type { SendWatch, WatchedSend } from '../../application/ports/send-watch';
import type { Fees } from '../../domain/chain/fees';
import { databaseNow, dialectOf, leaseSql } from './dialect';
import { Database } from './knex-journal.writer';

type Row = Record<string, unknown>;
/** A reservation whose holder signed nothing at it (a held nonce with a signed transaction is the send's for good). */
const UNSIGNED = 'NOT EXISTS (SELECT 1 FROM signed_transactions s WHERE s.send_id = nonce_reservations.send_id AND s.nonce = nonce_reservations.nonce)';
const rowsOf = (result: unknown): Row[] => (Array.isArray(result) ? result : (result as { rows: Row[] }).rows) as Row[];

/**
 * The send path's storage on knex: nonce lanes and reservations, signed transactions, and the watch of sends in
 * flight. Every step that must be exclusive is one statement, or a transaction whose first statement writes (on
 * SQLite it takes the write lock at once, so two processes never interleave; on PostgreSQL the row conditions are
 * re-checked by the UPDATE itself).
 */
@injectable()
export class KnexSendStore implements NonceAllocator, SendWatch {
  /** A fresh nonce of a lane: above every nonce reserved in it and at least its synced floor. */
  private readonly freshNonce: string;
  /** The database's "now" for watch leases on PostgreSQL (see LeaseClock), or undefined: the caller's times. */
  private readonly dbNow: string | undefined;
  /** PostgreSQL: concurrent watchers skip the rows another one is claiming instead of waiting for it. */
  private readonly skipLocked: string;

  constructor(@inject(Database) private readonly db: Knex) {
    this.freshNonce = dialectOf(db).greatest('l.next_nonce', 'COALESCE((SELECT MAX(nonce) + 1 FROM nonce_reservations r WHERE r.relayer = l.relayer AND r.network = l.network), 0)');
    this.dbNow = databaseNow(db);
    this.skipLocked = dialectOf(db).skipLocked;
  }

  // ---- NonceAllocator ----

  async synced(lane: NonceLane): Promise<boolean> {
    return (await this.db('nonce_lanes').where(lane).first('next_nonce')) !== undefined;
  }

  async sync(lane: NonceLane, chainPending: number, now: number): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx.raw(
        `INSERT INTO nonce_lanes (relayer, network, next_nonce, synced_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (relayer, network) DO UPDATE SET next_nonce = CASE WHEN nonce_lanes.next_nonce > excluded.next_nonce
           THEN nonce_lanes.next_nonce ELSE excluded.next_nonce END, synced_at = excluded.synced_at`,
        [lane.relayer, lane.network, chainPending, now],
      );
      // Free nonces below the chain's pending one were used on chain meanwhile (by another client of the key).
      await trx('nonce_reservations').where(lane).whereNull('send_id').andWhere('nonce', '<', chainPending).delete();
    });
  }

  async reserve(lane: NonceLane, sendId: string, now: number, staleMs: number): Promise<number> {
    const stale = now - staleMs;
    for (let tries = 0; ; tries++) {
      // The lowest free nonce of the lane (given back, or reserved and left unsigned too long), if any.
      const reused = rowsOf(await this.db.raw(
        `UPDATE nonce_reservations SET send_id = ?, reserved_at = ?
         WHERE relayer = ? AND network = ? AND (send_id IS NULL OR (reserved_at < ? AND ${UNSIGNED})) AND nonce = (
           SELECT MIN(nonce) FROM nonce_reservations WHERE relayer = ? AND network = ? AND (send_id IS NULL OR (reserved_at < ? AND ${UNSIGNED}))
             AND nonce >= (SELECT next_nonce FROM nonce_lanes WHERE relayer = ? AND network = ?))
           AND NOT EXISTS (SELECT 1 FROM nonce_reservations WHERE send_id = ?)
         RETURNING nonce`,
        [sendId, now, lane.relayer, lane.network, stale, lane.relayer, lane.network, stale, lane.relayer, lane.network, sendId],
      ));
      if (reused.length) return Number(reused[0]!.nonce);
      // Else a fresh one, in one statement: above every nonce of the lane and at least the lane's synced floor. A send
      // already holding one conflicts on send_id and takes nothing; a concurrent taker of the same nonce (PostgreSQL)
      // conflicts on the key, and this tries again.
      const fresh = rowsOf(await this.db.raw(
        `INSERT INTO nonce_reservations (relayer, network, nonce, send_id, reserved_at)
         SELECT l.relayer, l.network, ${this.freshNonce}, ?, ?
         FROM nonce_lanes l WHERE l.relayer = ? AND l.network = ?
         ON CONFLICT DO NOTHING
         RETURNING nonce`,
        [sendId, now, lane.relayer, lane.network],
      ));
      if (fresh.length) return Number(fresh[0]!.nonce);
      const held = await this.db('nonce_reservations').where({ send_id: sendId }).first('nonce');
      if (held) return Number(held.nonce);
      if (!(await this.synced(lane))) throw new Error(`nonce lane ${lane.relayer}@${lane.network} was never synced`);
      if (tries >= 20) throw new Error(`nonce lane ${lane.relayer}@${lane.network}: no nonce after ${tries} tries`);
    }
  }

  async recordSigned(lane: NonceLane, record: SignedRecord): Promise<void> {
    // One statement: the row goes in only while the send holds the nonce; from then on the nonce is the send's for good
    // (a reservation with a signed transaction is never reclaimed).
    const inserted = rowsOf(await this.db.raw(
      `INSERT INTO signed_transactions (tx_hash, send_id, nonce, purpose, raw, from_address, to_address, value_wei, data, gas_limit, fees, signed_at)
       SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
       WHERE EXISTS (SELECT 1 FROM nonce_reservations WHERE relayer = ? AND network = ? AND nonce = ? AND send_id = ?)
       ON CONFLICT (tx_hash) DO NOTHING
       RETURNING tx_hash`,
      [
        record.txHash.toLowerCase(), record.sendId, record.nonce, record.purpose, record.raw, record.from, record.to, record.valueWei.toString(),
        record.data, record.gasLimit.toString(), JSON.stringify(feesJson(record.fees)), record.signedAt,
        lane.relayer, lane.network, record.nonce, record.sendId,
      ],
    ));
    if (inserted.length) return;
    const held = await this.db('nonce_reservations').where({ ...lane, nonce: record.nonce, send_id: record.sendId }).first('nonce');
    if (!held) throw new Error(`send ${record.sendId} does not hold nonce ${record.nonce} of ${lane.relayer}@${lane.network}`);
  }

  async giveBack(sendId: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      // Below the lane's floor (the chain's pending nonce at the last sync) the chain has used the nonce: handing it out
      // again would only fail `nonce too low`, so it is forgotten rather than freed.
      await trx.raw(
        `DELETE FROM nonce_reservations WHERE send_id = ? AND nonce < (
           SELECT l.next_nonce FROM nonce_lanes l WHERE l.relayer = nonce_reservations.relayer AND l.network = nonce_reservations.network)`,
        [sendId],
      );
      await trx('nonce_reservations').where({ send_id: sendId }).update({ send_id: null });
    });
  }

  async signed(sendId: string): Promise<SignedRecord[]> {
    const rows = (await this.db('signed_transactions').where({ send_id: sendId }).orderBy([{ column: 'signed_at' }, { column: 'nonce' }]).select()) as Row[];
    return rows.map((r) => ({
      txHash: String(r.tx_hash), sendId: String(r.send_id), nonce: Number(r.nonce), purpose: String(r.purpose) as SignedPurpose,
      raw: String(r.raw), from: String(r.from_address), to: String(r.to_address), valueWei: BigInt(String(r.value_wei)), data: String(r.data),
      gasLimit: BigInt(String(r.gas_limit)), fees: feesOf(JSON.parse(String(r.fees)) as Record<string, string>), signedAt: Number(r.signed_at),
    }));
  }

  async holes(lane: NonceLane): Promise<number[]> {
    const rows = rowsOf(await this.db.raw(
      `SELECT r.nonce FROM nonce_reservations r JOIN nonce_lanes l ON l.relayer = r.relayer AND l.network = r.network
       WHERE r.relayer = ? AND r.network = ? AND r.send_id IS NULL AND r.nonce >= l.next_nonce
         AND EXISTS (SELECT 1 FROM nonce_reservations h WHERE h.relayer = r.relayer AND h.network = r.network AND h.send_id IS NOT NULL AND h.nonce > r.nonce)
       ORDER BY r.nonce`,
      [lane.relayer, lane.network],
    ));
    return rows.map((r) => Number(r.nonce));
  }

  async claim(lane: NonceLane, nonce: number, holderId: string, now: number): Promise<boolean> {
    const taken = await this.db('nonce_reservations').where({ ...lane, nonce }).whereNull('send_id').update({ send_id: holderId, reserved_at: now });
    return Number(taken) === 1;
  }

  // ---- SendWatch ----

  async watch(send: WatchedSend, dueAt: number): Promise<void> {
    await this.db('send_watch').insert({ send_id: send.sendId, run_id: send.runId, due_at: dueAt })
      .onConflict('send_id').merge({ due_at: dueAt });
  }

  async lease(send: WatchedSend, owner: string, now: number, leaseUntil: number): Promise<boolean> {
    const lease = leaseSql(this.dbNow, now, leaseUntil);
    const rows = rowsOf(await this.db.raw(
      `INSERT INTO send_watch (send_id, run_id, due_at, owner, lease_until) VALUES (?, ?, ?, ?, ${lease.until})
       ON CONFLICT (send_id) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until
       WHERE send_watch.lease_until IS NULL OR send_watch.lease_until < ${lease.now} OR send_watch.owner = excluded.owner
       RETURNING send_id`,
      [send.sendId, send.runId, leaseUntil, owner, ...lease.untilArgs, ...lease.nowArgs],
    ));
    return rows.length === 1;
  }

  async claimDue(owner: string, now: number, leaseUntil: number, limit: number): Promise<WatchedSend[]> {
    // Due times are the watch's schedule (the caller's clock); lease times may be the database's.
    const lease = leaseSql(this.dbNow, now, leaseUntil);
    const rows = rowsOf(await this.db.raw(
      `UPDATE send_watch SET owner = ?, lease_until = ${lease.until} WHERE send_id IN (
         SELECT send_id FROM send_watch WHERE due_at <= ? AND (lease_until IS NULL OR lease_until < ${lease.now}) ORDER BY due_at LIMIT ?${this.skipLocked})
       AND (lease_until IS NULL OR lease_until < ${lease.now})
       RETURNING send_id, run_id, due_at`,
      [owner, ...lease.untilArgs, now, ...lease.nowArgs, limit, ...lease.nowArgs],
    ));
    // RETURNING keeps no order: earliest due first, as promised.
    rows.sort((a, b) => Number(a.due_at) - Number(b.due_at) || String(a.send_id).localeCompare(String(b.send_id)));
    return rows.map((r) => ({ sendId: String(r.send_id), runId: String(r.run_id) }));
  }

  async release(sendId: string, owner: string, dueAt: number): Promise<void> {
    await this.db('send_watch').where({ send_id: sendId, owner }).update({ owner: null, lease_until: null, due_at: dueAt });
  }

  async unwatch(sendId: string): Promise<void> {
    await this.db('send_watch').where({ send_id: sendId }).delete();
  }

  async count(): Promise<number> {
    const row = (await this.db('send_watch').count({ n: '*' }).first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  }
}

function feesJson(fees: Fees): Record<string, string> {
  return fees.kind === 'legacy'
    ? { kind: 'legacy', gasPrice: fees.gasPrice.toString() }
    : { kind: 'eip1559', maxFeePerGas: fees.maxFeePerGas.toString(), maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString() };
}

function feesOf(json: Record<string, string>): Fees {
  return json.kind === 'legacy'
    ? { kind: 'legacy', gasPrice: BigInt(json.gasPrice!) }
    : { kind: 'eip1559', maxFeePerGas: BigInt(json.maxFeePerGas!), maxPriorityFeePerGas: BigInt(json.maxPriorityFeePerGas!) };
}
