import type { ListFilter } from '../../src/application/ports/history-repository';
import type { NotificationOutbox } from '../../src/application/ports/notification-outbox';
import type { PageRequest } from '../../src/application/ports/run-repository';
import type { DeliveryResult, Notification } from '../../src/domain/notifications/notification';

const FIELD: Readonly<Record<string, keyof Notification>> = { channel: 'channel', type: 'type', run_id: 'runId', status: 'status' };

interface Held {
  row: Notification;
  owner: string | null;
  until: number;
}

/** The notifications outbox in memory; passes the same contract tests as KnexNotificationOutbox. */
export class InMemoryNotificationOutbox implements NotificationOutbox {
  private readonly rows = new Map<string, Held>();

  async enqueue(rows: readonly Notification[]): Promise<void> {
    for (const row of rows) if (!this.rows.has(row.id)) this.rows.set(row.id, { row: { ...row, data: structuredClone(row.data) }, owner: null, until: 0 });
  }

  async claimDue(owner: string, now: number, claimUntil: number, limit: number): Promise<Notification[]> {
    const due = [...this.rows.values()]
      .filter((h) => h.row.status === 'pending' && h.row.nextAt <= now && (h.owner === null || h.until < now))
      .sort((a, b) => a.row.nextAt - b.row.nextAt || (a.row.id < b.row.id ? -1 : 1))
      .slice(0, limit);
    for (const h of due) Object.assign(h, { owner, until: claimUntil });
    return due.map((h) => copy(h.row));
  }

  async settle(id: string, owner: string, result: DeliveryResult): Promise<boolean> {
    const h = this.rows.get(id);
    if (!h || h.owner !== owner || h.row.status !== 'pending') return false;
    const attempts = h.row.attempts + 1;
    h.row = result.kind === 'delivered'
      ? { ...h.row, attempts, status: 'delivered' }
      : result.kind === 'retry'
        ? { ...h.row, attempts, lastError: result.error, nextAt: result.nextAt }
        : { ...h.row, attempts, status: 'failed', lastError: result.error };
    Object.assign(h, { owner: null, until: 0 });
    return true;
  }

  async list(filter: ListFilter, page: PageRequest): Promise<Notification[]> {
    return [...this.rows.values()].map((h) => h.row)
      .filter((r) => Object.entries(filter.equals).every(([field, value]) => {
        const key = FIELD[field];
        if (!key) throw new Error(`notifications: no filter '${field}'`);
        return r[key] === value;
      }))
      .filter((r) => (filter.since === undefined || r.createdAt >= filter.since) && (filter.until === undefined || r.createdAt <= filter.until))
      .filter((r) => !page.after || r.createdAt < page.after.createdAt || (r.createdAt === page.after.createdAt && r.id < page.after.id))
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .slice(0, page.limit)
      .map(copy);
  }
}

function copy(n: Notification): Notification {
  return { ...n, data: structuredClone(n.data) };
}
