import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import type { ListFilter } from '../../application/ports/history-repository';
import type { PageRequest } from '../../application/ports/run-repository';
import type { TopupAudit } from '../../application/ports/topup-audit';
import type { TopupAttempt, TopupOutcome, TopupResult } from '../../domain/relayers/topup';
import { Database } from './knex-journal.writer';

type Row = Record<string, unknown>;

/** Item field names of the trail's filters, and the columns that hold them. */
const COLUMN: Readonly<Record<string, string>> = { from: 'from_relayer', to: 'to_relayer', network: 'network', outcome: 'outcome', by: 'by' };

function toAttempt(r: Row): TopupAttempt {
  return {
    topupId: String(r.topup_id), at: Number(r.at), by: String(r.by), from: String(r.from_relayer), fromAddress: String(r.from_address),
    to: String(r.to_relayer), toAddress: String(r.to_address), network: String(r.network), chainId: Number(r.chain_id),
    amountWei: BigInt(String(r.amount_wei)), txHash: r.tx_hash === null || r.tx_hash === undefined ? null : String(r.tx_hash),
    outcome: String(r.outcome) as TopupOutcome, error: r.error === null || r.error === undefined ? null : String(r.error),
  };
}

/** The top-up audit trail in `relayer_topups` (migration 0006); a page is one index range read backwards. */
@injectable()
export class KnexTopupAudit implements TopupAudit {
  constructor(@inject(Database) private readonly db: Knex) {}

  async record(a: TopupAttempt): Promise<void> {
    await this.db('relayer_topups').insert({
      topup_id: a.topupId, at: a.at, by: a.by, from_relayer: a.from, from_address: a.fromAddress, to_relayer: a.to, to_address: a.toAddress,
      network: a.network, chain_id: a.chainId, amount_wei: a.amountWei.toString(), tx_hash: a.txHash, outcome: a.outcome, error: a.error,
    });
  }

  async complete(topupId: string, result: TopupResult): Promise<void> {
    await this.db('relayer_topups').where({ topup_id: topupId }).whereIn('outcome', ['pending', 'submitted'])
      .update({ outcome: result.outcome, tx_hash: result.txHash, error: result.error });
  }

  async list(filter: ListFilter, page: PageRequest): Promise<TopupAttempt[]> {
    const q = this.db('relayer_topups').select('*');
    for (const [field, value] of Object.entries(filter.equals)) {
      const column = COLUMN[field];
      if (!column) throw new Error(`top-up trail: no filter '${field}'`);
      q.where(column, value);
    }
    if (filter.since !== undefined) q.where('at', '>=', filter.since);
    if (filter.until !== undefined) q.where('at', '<=', filter.until);
    if (page.after) q.whereRaw('(at, topup_id) < (?, ?)', [page.after.createdAt, page.after.id]);
    const rows: Row[] = await q.orderBy([{ column: 'at', order: 'desc' }, { column: 'topup_id', order: 'desc' }]).limit(page.limit);
    return rows.map(toAttempt);
  }
}
