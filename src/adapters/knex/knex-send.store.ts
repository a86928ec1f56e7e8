import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import type { NonceAllocator, NonceLane, SignedPurpose, SignedRecord } from '../../application/ports/nonce-allocator';
import type { SendWatch, WatchedSend } from '../../application/ports/send-watch';
import type { Fees } from '../../domain/chain/fees';
import { Database } from './knex-journal.writer';

type Row = Record<string, unknown>;
const rowsOf = (result: unknown): Row[] => (Array.isArray(result) ? result : (result as { rows: Row[] }).rows) as Row[];

/**
 * The send path's storage on knex: nonce lanes and reservations, signed transactions, and the watch of sends in
 * flight. Every step that must be exclusive is one statement, or a transaction whose first statement writes (on
 * SQLite it takes the write lock at once, so two processes never interleave; on PostgreSQL the row conditions are
 * re-checked by the UPDATE itself).
 */
@injectable()
export class KnexSendStore implements NonceAllocator, SendWatch {
  constructor(@inject(Database) private readonly db: Knex) {}

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
    const held = await this.db('nonce_reservations').where({ send_id: sendId }).first('nonce');
    if (held) return Number(held.nonce);
    const stale = now - staleMs;
    return this.db.transaction(async (trx) => {
      const reused = rowsOf(await trx.raw(
        `UPDATE nonce_reservations SET send_id = ?, signed = 0, reserved_at = ?
         WHERE relayer = ? AND network = ? AND (send_id IS NULL OR (signed = 0 AND reserved_at < ?)) AND nonce = (
           SELECT MIN(nonce) FROM nonce_reservations WHERE relayer = ? AND network = ? AND (send_id IS NULL OR (signed = 0 AND reserved_at < ?)))
         RETURNING nonce`,
        [sendId, now, lane.relayer, lane.network, stale, lane.relayer, lane.network, stale],
      ));
      if (reused.length) return Number(reused[0]!.nonce);
      const next = rowsOf(await trx.raw(
        'UPDATE nonce_lanes SET next_nonce = next_nonce + 1 WHERE relayer = ? AND network = ? RETURNING next_nonce',
        [lane.relayer, lane.network],
      ));
      if (!next.length) throw new Error(`nonce lane ${lane.relayer}@${lane.network} was never synced`);
      const nonce = Number(next[0]!.next_nonce) - 1;
      await trx('nonce_reservations').insert({ ...lane, nonce, send_id: sendId, signed: 0, reserved_at: now });
      return nonce;
    });
  }

  async recordSigned(lane: NonceLane, record: SignedRecord): Promise<void> {
    await this.db.transaction(async (trx) => {
      const held = await trx('nonce_reservations').where({ ...lane, nonce: record.nonce, send_id: record.sendId }).update({ signed: 1 });
      if (held !== 1) throw new Error(`send ${record.sendId} does not hold nonce ${record.nonce} of ${lane.relayer}@${lane.network}`);
      await trx('signed_transactions').insert({
        tx_hash: record.txHash.toLowerCase(), send_id: record.sendId, nonce: record.nonce, purpose: record.purpose, raw: record.raw,
        from_address: record.from, to_address: record.to, value_wei: record.valueWei.toString(), data: record.data, gas_limit: record.gasLimit.toString(),
        fees: JSON.stringify(feesJson(record.fees)), signed_at: record.signedAt,
      }).onConflict('tx_hash').ignore();
    });
  }

  async giveBack(sendId: string): Promise<void> {
    await this.db('nonce_reservations').where({ send_id: sendId }).update({ send_id: null, signed: 0 });
  }

  async signed(sendId: string): Promise<SignedRecord[]> {
    const rows = (await this.db('signed_transactions').where({ send_id: sendId }).orderBy([{ column: 'signed_at' }, { column: 'nonce' }]).select()) as Row[];
    return rows.map((r) => ({
      txHash: String(r.tx_hash), sendId: String(r.send_id), nonce: Number(r.nonce), purpose: String(r.purpose) as SignedPurpose,
      raw: String(r.raw), from: String(r.from_address), to: String(r.to_address), valueWei: BigInt(String(r.value_wei)), data: String(r.data),
      gasLimit: BigInt(String(r.gas_limit)), fees: feesOf(JSON.parse(String(r.fees)) as Record<string, string>), signedAt: Number(r.signed_at),
    }));
  }

  // ---- SendWatch ----

  async watch(send: WatchedSend, dueAt: number): Promise<void> {
    await this.db('send_watch').insert({ send_id: send.sendId, run_id: send.runId, due_at: dueAt })
      .onConflict('send_id').merge({ due_at: dueAt });
  }

  async lease(send: WatchedSend, owner: string, now: number, leaseUntil: number): Promise<boolean> {
    const rows = rowsOf(await this.db.raw(
      `INSERT INTO send_watch (send_id, run_id, due_at, owner, lease_until) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (send_id) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until
       WHERE send_watch.lease_until IS NULL OR send_watch.lease_until < ? OR send_watch.owner = excluded.owner
       RETURNING send_id`,
      [send.sendId, send.runId, leaseUntil, owner, leaseUntil, now],
    ));
    return rows.length === 1;
  }

  async claimDue(owner: string, now: number, leaseUntil: number, limit: number): Promise<WatchedSend[]> {
    const rows = rowsOf(await this.db.raw(
      `UPDATE send_watch SET owner = ?, lease_until = ? WHERE send_id IN (
         SELECT send_id FROM send_watch WHERE due_at <= ? AND (lease_until IS NULL OR lease_until < ?) ORDER BY due_at LIMIT ?)
       AND (lease_until IS NULL OR lease_until < ?)
       RETURNING send_id, run_id, due_at`,
      [owner, leaseUntil, now, now, limit, now],
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
