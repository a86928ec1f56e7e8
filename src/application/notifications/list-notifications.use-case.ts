import { inject, injectable } from 'inversify';
import { CursorCodec } from '../../domain/cursor';
import { DELIVERY_STATUSES, NOTIFICATION_TYPES, type Notification } from '../../domain/notifications/notification';
import { Redactor } from '../../domain/redactor';
import { toIso } from '../../domain/time';
import type { ListEnvelope } from '../history/items';
import { KeysetList } from '../history/keyset-list';
import { Clock } from '../ports/clock';
import { NotificationOutbox } from '../ports/notification-outbox';
import type { ParamSpecs } from '../query/query-params';

/** One delivery as the API and `chainflow notifications history --json` show it (CONTRACT 11). */
export interface NotificationItem {
  id: string;
  channel: string;
  type: string;
  workflow: string | null;
  run_id: string | null;
  status: string;
  attempts: number;
  last_error: string | null;
  created_at: string;
  /** When the next attempt is due, while pending; null once delivered or failed. */
  next_at: string | null;
}

export const NOTIFICATION_ITEM_KEYS = ['id', 'channel', 'type', 'workflow', 'run_id', 'status', 'attempts', 'last_error', 'created_at', 'next_at'] as const;

/** Filters of the deliveries list, each named as the item field it filters. */
export const NOTIFICATION_FILTERS: ParamSpecs = {
  channel: { kind: 'text', description: 'channel name (notifications.<name>)' },
  type: { kind: 'enum', values: [...NOTIFICATION_TYPES, 'test'], description: 'what the notification tells' },
  run_id: { kind: 'id', description: 'the run it is about' },
  status: { kind: 'enum', values: DELIVERY_STATUSES, description: 'pending, delivered or failed' },
};

export function toNotificationItem(n: Notification): NotificationItem {
  return {
    id: n.id, channel: n.channel, type: n.type, workflow: n.workflow, run_id: n.runId, status: n.status, attempts: n.attempts,
    last_error: n.lastError, created_at: toIso(n.createdAt), next_at: n.status === 'pending' ? toIso(n.nextAt) : null,
  };
}

/** `GET /api/notifications` and `chainflow notifications history`: the outbox's deliveries, newest first. */
@injectable()
export class ListNotifications {
  private readonly list: KeysetList<Notification, NotificationItem>;

  constructor(
    @inject(NotificationOutbox) outbox: NotificationOutbox,
    @inject(CursorCodec) cursors: CursorCodec,
    @inject(Redactor) redactor: Redactor,
    @inject(Clock) clock: Clock,
  ) {
    this.list = new KeysetList<Notification, NotificationItem>({
      list: 'notifications',
      filters: NOTIFICATION_FILTERS,
      timeField: 'created_at',
      fetch: (filter, page) => outbox.list(filter, page),
      position: (row) => ({ createdAt: row.createdAt, id: row.id }),
      item: toNotificationItem,
      itemKeys: NOTIFICATION_ITEM_KEYS,
      cursors,
      redactor,
      now: () => clock.now(),
    });
  }

  /** The query parameters this list takes (for the API's declarations). */
  get params(): ParamSpecs {
    return this.list.params;
  }

  /** `query`: raw parameters (HTTP query or CLI flags), validated here. */
  async execute(query: Readonly<Record<string, unknown>>): Promise<ListEnvelope<NotificationItem>> {
    return this.list.page(query);
  }
}
