import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import type { ListFilter } from '../../application/ports/history-repository';
import type { NotificationOutbox } from '../../application/ports/notification-outbox';
import type { PageRequest } from '../../application/ports/run-repository';
import type { DeliveryResult, DeliveryStatus, Notification, NotificationType } from '../../domain/notifications/notification';
import { dialectOf } from './dialect';
import { Database } from './knex-journal.writer';

type Row = Record<string, unknown>;

/** Item field names of the list's filters, and the columns that hold them. */
const COLUMN: Readonly<Record<string, string>> = { channel: 'channel', type: 'type', run_id: 'run_id', status: 'status' };

const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

function toNotification(r: Row): Notification {
  return {
    id: String(r.id), channel: String(r.channel), type: String(r.type) as NotificationType, runId: text(r.run_id), workflow: text(r.workflow),
    at: Number(r.at), data: JSON.parse(String(r.data)) as Record<string, unknown>, status: String(r.status) as DeliveryStatus,
    attempts: Number(r.attempts), lastError: text(r.last_error), createdAt: Number(r.created_at), nextAt: Number(r.next_at),
  };
}

/** The notifications outbox in `notifications` (migration 0016). */
@injectable()
export class KnexNotificationOutbox implements NotificationOutbox {
  constructor(@inject(Database) private readonly db: Knex) {}

  async enqueue(rows: readonly Notification[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db('notifications').insert(rows.map((n) => ({
      id: n.id, channel: n.channel, type: n.type, run_id: n.runId, workflow: n.workflow, at: n.at, data: JSON.stringify(n.data),
      status: n.status, attempts: n.attempts, last_error: n.lastError, created_at: n.createdAt, next_at: n.nextAt,
    }))).onConflict('id').ignore();
  }

  /**
   * One statement picks the due rows and takes them (CONTRACT 10): on PostgreSQL the candidates are locked
   * `FOR UPDATE SKIP LOCKED`, so a claimer at the same moment takes the next due rows rather than the same ones; SQLite
   * runs the statement under its write lock. Candidates read first and taken one by one let every claimer of a round
   * but one come back empty-handed while rows stayed due.
   */
  async claimDue(owner: string, now: number, claimUntil: number, limit: number): Promise<Notification[]> {
    if (limit <= 0) return [];
    const result: unknown = await this.db.raw(
      `UPDATE notifications SET claimed_by = ?, claimed_until = ?
       WHERE id IN (
         SELECT id FROM notifications WHERE status = 'pending' AND next_at <= ? AND (claimed_until IS NULL OR claimed_until < ?)
         ORDER BY next_at, id LIMIT ?${dialectOf(this.db).skipLocked})
       RETURNING *`,
      [owner, claimUntil, now, now, limit],
    );
    const rows = (Array.isArray(result) ? result : (result as { rows: Row[] }).rows) as Row[];
    return rows.map(toNotification).sort((a, b) => a.nextAt - b.nextAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async settle(id: string, owner: string, result: DeliveryResult): Promise<boolean> {
    const change: Row = { attempts: this.db.raw('attempts + 1'), claimed_by: null, claimed_until: null };
    if (result.kind === 'delivered') change.status = 'delivered';
    else if (result.kind === 'retry') Object.assign(change, { last_error: result.error, next_at: result.nextAt });
    else Object.assign(change, { status: 'failed', last_error: result.error });
    const changed = await this.db('notifications').where({ id, claimed_by: owner, status: 'pending' }).update(change);
    return changed === 1;
  }

  async list(filter: ListFilter, page: PageRequest): Promise<Notification[]> {
    const q = this.db('notifications').select('*');
    for (const [field, value] of Object.entries(filter.equals)) {
      const column = COLUMN[field];
      if (!column) throw new Error(`notifications: no filter '${field}'`);
      q.where(column, value);
    }
    if (filter.since !== undefined) q.where('created_at', '>=', filter.since);
    if (filter.until !== undefined) q.where('created_at', '<=', filter.until);
    if (page.after) q.whereRaw('(created_at, id) < (?, ?)', [page.after.createdAt, page.after.id]);
    const rows: Row[] = await q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(page.limit);
    return rows.map(toNotification);
  }
}
