import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import type { EventCursors, LogRun, LogRunToEnqueue, ReorgResponse, ReorgRollback, SendReorg } from '../../application/ports/event-cursors';
import type { BlockHeader } from '../../domain/chain/chain-log';
import { storeDefinition, unheldRunRow } from './engine-runs-sql';
import { Database } from './knex-journal.writer';

/** Rows per multi-row INSERT: 7 bindings each, well under SQLite's and PostgreSQL's bounds. */
const CHUNK = 200;

const rowsOf = <T>(result: unknown): T[] => (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
/** Block numbers are bound as JS numbers (safe: no chain is near 2^53 blocks) and read back as bigint. */
const block = (n: bigint): number => {
  if (n < 0n || n > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`block number ${n} is out of range`);
  return Number(n);
};
const big = (v: unknown): bigint => BigInt(String(v));

/**
 * Event cursors on knex, in portable SQL (SQLite and PostgreSQL alike): the cursor's move is a compare-and-set
 * UPDATE in the transaction that records the log runs (INSERT … ON CONFLICT DO NOTHING RETURNING on their key) and
 * enqueues the runs of the rows that went in. Two processes that read the same range: one moves the cursor, the
 * other's transaction finds it moved and writes nothing.
 */
@injectable()
export class KnexEventCursors implements EventCursors {
  constructor(@inject(Database) private readonly db: Knex) {}

  async cursor(workflow: string): Promise<bigint | undefined> {
    const row = await this.db('event_cursors').where({ workflow }).first('next_block');
    return row ? big(row.next_block) : undefined;
  }

  async startCursor(workflow: string, network: string, next: bigint): Promise<bigint> {
    await this.db.raw('INSERT INTO event_cursors (workflow, network, next_block, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (workflow) DO NOTHING', [
      workflow, network, block(next), Date.now(),
    ]);
    return (await this.cursor(workflow))!;
  }

  async advance(workflow: string, expected: bigint, next: bigint, runs: readonly LogRunToEnqueue[]): Promise<{ advanced: boolean; started: string[] }> {
    const definitions = new Map(runs.flatMap((r) => (r.run.definition ? [[r.run.definition.hash, r.run.definition] as const] : [])));
    for (const definition of definitions.values()) await storeDefinition(this.db, workflow, definition);
    return this.db.transaction(async (trx) => {
      const moved = await trx('event_cursors').where({ workflow, next_block: block(expected) }).update({ next_block: block(next), updated_at: Date.now() });
      if (Number(moved) !== 1) return { advanced: false, started: [] };
      const started: string[] = [];
      for (let i = 0; i < runs.length; i += CHUNK) started.push(...(await this.record(trx, workflow, runs.slice(i, i + CHUNK))));
      return { advanced: true, started };
    });
  }

  /** Records the log runs not seen before and enqueues their runs; the ids of those. */
  private async record(trx: Knex.Transaction, workflow: string, runs: readonly LogRunToEnqueue[]): Promise<string[]> {
    if (runs.length === 0) return [];
    const inserted = rowsOf<{ run_id: string }>(await trx.raw(
      `INSERT INTO event_log_runs (workflow, block_hash, log_index, run_id, network, block_number, tx_hash)
       VALUES ${runs.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}
       ON CONFLICT (workflow, block_hash, log_index) DO NOTHING RETURNING run_id`,
      runs.flatMap((r) => [workflow, r.blockHash.toLowerCase(), r.logIndex, r.run.runId, r.network, block(r.blockNumber), r.txHash.toLowerCase()]),
    )).map((row) => row.run_id);
    const fresh = new Set(inserted);
    // Due at once, in chain order: each run of a batch a millisecond after the one before it, the last one now.
    const enqueued = runs.filter((r) => fresh.has(r.run.runId));
    const rows = enqueued.map((r, i) => unheldRunRow(r.run, r.run.at - (enqueued.length - 1 - i)));
    if (rows.length) await trx('engine_runs').insert(rows);
    return enqueued.map((r) => r.run.runId);
  }

  async logRunsFrom(network: string, fromBlock: bigint): Promise<LogRun[]> {
    const rows = await this.db('event_log_runs').where({ network }).andWhere('block_number', '>=', block(fromBlock))
      .orderBy([{ column: 'block_number' }, { column: 'log_index' }, { column: 'workflow' }])
      .select('workflow', 'run_id', 'network', 'block_number', 'block_hash', 'log_index');
    return rows.map((r: Record<string, unknown>) => ({
      workflow: String(r.workflow), runId: String(r.run_id), network: String(r.network), blockNumber: big(r.block_number),
      blockHash: String(r.block_hash), logIndex: Number(r.log_index),
    }));
  }

  async keepBlocks(network: string, headers: readonly BlockHeader[], keepFrom: bigint): Promise<void> {
    await this.db.transaction(async (trx) => {
      await upsertBlocks(trx, network, headers);
      // A window that reaches below genesis (a young chain) keeps everything.
      if (keepFrom > 0n) await trx('event_blocks').where({ network }).andWhere('number', '<', block(keepFrom)).delete();
    });
  }

  async rollBack(reorg: ReorgRollback): Promise<{ applied: boolean; responses: ReorgResponse[] }> {
    const { network, ancestor, removedTop } = reorg;
    return this.db.transaction(async (trx) => {
      // The compare-and-set: the process whose DELETE finds the removed header rolls the reorg back; another finds none.
      const taken = await trx('event_blocks').where({ network, number: block(removedTop.number), hash: removedTop.hash.toLowerCase() }).delete();
      if (Number(taken) !== 1) return { applied: false, responses: [] };
      await trx('event_blocks').where({ network }).andWhere('number', '>', block(ancestor)).delete();
      await upsertBlocks(trx, network, reorg.canonical);
      if (reorg.cursorsStay) return { applied: true, responses: [] };
      await trx('event_cursors').where({ network }).andWhere('next_block', '>', block(ancestor + 1n))
        .update({ next_block: block(ancestor + 1n), updated_at: reorg.at });
      const canonical = reorg.canonical.map((h) => h.hash.toLowerCase());
      await recordSendReorgs(trx, reorg, canonical);
      let query = trx('event_log_runs').where({ network }).andWhere('block_number', '>', block(ancestor)).whereNull('reorg_id');
      if (canonical.length) query = query.whereNotIn('block_hash', canonical);
      const removed: Array<Record<string, unknown>> = await query.orderBy([{ column: 'block_number' }, { column: 'log_index' }, { column: 'workflow' }])
        .select('workflow', 'block_hash', 'log_index', 'run_id', 'block_number');
      const responses: ReorgResponse[] = [];
      for (const r of removed) {
        const response: ReorgResponse = {
          reorgId: reorg.newReorgId(), runId: String(r.run_id), workflow: String(r.workflow), network, block: big(r.block_number),
          removedBlockHash: String(r.block_hash), depth: reorg.depth, at: reorg.at,
        };
        await trx('event_log_runs').where({ workflow: r.workflow, block_hash: r.block_hash, log_index: r.log_index }).update({ reorg_id: response.reorgId });
        await trx('reorg_responses').insert({
          reorg_id: response.reorgId, run_id: response.runId, workflow: response.workflow, network, block: block(response.block),
          removed_block_hash: response.removedBlockHash, depth: response.depth, created_at: response.at, journaled_at: null,
        });
        responses.push(response);
      }
      return { applied: true, responses };
    });
  }

  async pendingResponses(network: string): Promise<ReorgResponse[]> {
    const rows = await this.db('reorg_responses').where({ network }).whereNull('journaled_at').orderBy([{ column: 'created_at' }, { column: 'block' }, { column: 'reorg_id' }]);
    return rows.map((r: Record<string, unknown>) => ({
      reorgId: String(r.reorg_id), runId: String(r.run_id), workflow: String(r.workflow), network: String(r.network), block: big(r.block),
      removedBlockHash: String(r.removed_block_hash), depth: Number(r.depth), at: Number(r.created_at),
    }));
  }

  async responseJournaled(reorgId: string): Promise<void> {
    await this.db('reorg_responses').where({ reorg_id: reorgId }).whereNull('journaled_at').update({ journaled_at: Date.now() });
  }

  async pendingSendReorgs(network: string): Promise<SendReorg[]> {
    const rows = await this.db('send_reorgs').where({ network }).whereNull('journaled_at').orderBy([{ column: 'created_at' }, { column: 'block' }, { column: 'send_id' }]);
    return rows.map((r: Record<string, unknown>) => ({
      sendId: String(r.send_id), runId: String(r.run_id), network: String(r.network), txHash: String(r.tx_hash), block: big(r.block),
      removedBlockHash: String(r.removed_block_hash), at: Number(r.created_at),
    }));
  }

  async sendReorgJournaled(sendId: string, removedBlockHash: string): Promise<void> {
    await this.db('send_reorgs').where({ send_id: sendId, removed_block_hash: removedBlockHash }).whereNull('journaled_at').update({ journaled_at: Date.now() });
  }

  async keptBlocks(network: string, fromBlock: bigint): Promise<BlockHeader[]> {
    const rows = await this.db('event_blocks').where({ network }).andWhere('number', '>=', block(fromBlock < 0n ? 0n : fromBlock)).orderBy('number')
      .select('number', 'hash', 'parent_hash', 'block_time');
    return rows.map((r: Record<string, unknown>) => ({
      number: big(r.number), hash: String(r.hash), parentHash: String(r.parent_hash), timestamp: Number(r.block_time),
    }));
  }
}

/**
 * In the roll back's transaction: a pending reopening for each settled send of the network whose receipt's block was
 * removed (above the ancestor and up to the head, not one of the canonical blocks). Once per send and removed block: a second roll back
 * of the same blocks records nothing more.
 */
async function recordSendReorgs(trx: Knex.Transaction, reorg: ReorgRollback, canonical: readonly string[]): Promise<void> {
  // Up to the head the check read: it gave the canonical hash of each height there; a receipt above it is of a newer chain.
  const head = reorg.canonical.reduce((top, h) => (h.number > top ? h.number : top), reorg.ancestor);
  let query = trx('send_receipt_blocks as b').join('sends as s', 's.send_id', 'b.send_id').where({ 'b.network': reorg.network, 's.status': 'settled' })
    .andWhere('b.block_number', '>', block(reorg.ancestor)).andWhere('b.block_number', '<=', block(head));
  if (canonical.length) query = query.whereNotIn('b.block_hash', canonical);
  const sends: Array<Record<string, unknown>> = await query.select('s.send_id', 's.run_id', 's.tx_hash', 'b.block_number', 'b.block_hash');
  const rows = sends.map((s) => ({
    send_id: s.send_id, removed_block_hash: s.block_hash, run_id: s.run_id, network: reorg.network, tx_hash: s.tx_hash,
    block: Number(s.block_number), created_at: reorg.at, journaled_at: null,
  }));
  for (let i = 0; i < rows.length; i += CHUNK) await trx('send_reorgs').insert(rows.slice(i, i + CHUNK)).onConflict(['send_id', 'removed_block_hash']).ignore();
}

/** Keeps these headers as the network's blocks at their numbers (one kept before at a number is replaced). */
async function upsertBlocks(trx: Knex.Transaction, network: string, given: readonly BlockHeader[]): Promise<void> {
  // One row per number (the last given wins): PostgreSQL refuses an upsert that touches a row twice (SQLSTATE 21000),
  // as when the head is also the block of a log.
  const headers = [...new Map(given.map((h) => [h.number, h])).values()];
  for (let i = 0; i < headers.length; i += CHUNK) {
    const part = headers.slice(i, i + CHUNK);
    await trx.raw(
      `INSERT INTO event_blocks (network, number, hash, parent_hash, block_time) VALUES ${part.map(() => '(?, ?, ?, ?, ?)').join(', ')}
       ON CONFLICT (network, number) DO UPDATE SET hash = excluded.hash, parent_hash = excluded.parent_hash, block_time = excluded.block_time`,
      part.flatMap((h) => [network, block(h.number), h.hash.toLowerCase(), h.parentHash.toLowerCase(), h.timestamp]),
    );
  }
}
