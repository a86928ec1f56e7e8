import type { ListFilter } from '../../src/application/ports/history-repository';
import type { PageRequest } from '../../src/application/ports/run-repository';
import type { TopupAudit } from '../../src/application/ports/topup-audit';
import type { TopupAttempt, TopupResult } from '../../src/domain/relayers/topup';

const FIELD: Readonly<Record<string, keyof TopupAttempt>> = { from: 'from', to: 'to', network: 'network', outcome: 'outcome', by: 'by' };

/** The top-up audit trail in memory; passes the same contract tests as KnexTopupAudit (test/contract/topup-audit.contract.ts). */
export class InMemoryTopupAudit implements TopupAudit {
  private readonly rows = new Map<string, TopupAttempt>();

  async record(attempt: TopupAttempt): Promise<void> {
    if (this.rows.has(attempt.topupId)) throw new Error(`top-up ${attempt.topupId} is recorded already`);
    this.rows.set(attempt.topupId, { ...attempt });
  }

  async complete(topupId: string, result: TopupResult): Promise<void> {
    const row = this.rows.get(topupId);
    if (row?.outcome === 'pending' || row?.outcome === 'submitted') this.rows.set(topupId, { ...row, ...result });
  }

  async list(filter: ListFilter, page: PageRequest): Promise<TopupAttempt[]> {
    return [...this.rows.values()]
      .filter((r) => Object.entries(filter.equals).every(([field, value]) => {
        const key = FIELD[field];
        if (!key) throw new Error(`top-up trail: no filter '${field}'`);
        return r[key] === value;
      }))
      .filter((r) => (filter.since === undefined || r.at >= filter.since) && (filter.until === undefined || r.at <= filter.until))
      .filter((r) => !page.after || r.at < page.after.createdAt || (r.at === page.after.createdAt && r.topupId < page.after.id))
      .sort((a, b) => b.at - a.at || (a.topupId < b.topupId ? 1 : a.topupId > b.topupId ? -1 : 0))
      .slice(0, page.limit)
      .map((r) => ({ ...r }));
  }
}
