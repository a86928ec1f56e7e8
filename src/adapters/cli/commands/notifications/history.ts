import { Flags } from '@oclif/core';
import { ListNotifications, type NotificationItem } from '../../../../application/notifications/list-notifications.use-case';
import { listFlags } from '../../base.command';
import { ListCommand, type Column } from '../../list.command';

/** `chainflow notifications history`: the outbox's deliveries, newest first (the API's `GET /api/notifications`). */
export default class NotificationsHistory extends ListCommand<NotificationItem> {
  static override summary = 'Notification deliveries (webhook, Slack): pending, delivered or failed, newest first';
  static override examples = ['<%= config.bin %> notifications history', '<%= config.bin %> notifications history --status failed --since 24h'];
  static override flags = {
    channel: Flags.string({ description: 'channel name (notifications.<name>)' }),
    type: Flags.string({ description: 'run_failed, run_dead_lettered, budget_exceeded, approval_requested, … or test' }),
    'run-id': Flags.string({ description: 'the run it is about' }),
    status: Flags.string({ description: 'pending, delivered or failed' }),
    since: Flags.string({ description: 'duration back from now (24h, 7d) or RFC 3339 time' }),
    until: Flags.string({ description: 'duration back from now or RFC 3339 time' }),
    ...listFlags,
  };

  protected readonly queryFlags = ['channel', 'type', 'run-id', 'status', 'since', 'until'];
  protected readonly empty = 'no notifications';
  protected readonly columns: readonly Column<NotificationItem>[] = [
    ['CREATED', (n) => n.created_at], ['ID', (n) => n.id], ['CHANNEL', (n) => n.channel], ['TYPE', (n) => n.type], ['RUN', (n) => n.run_id],
    ['STATUS', (n) => n.status], ['ATTEMPTS', (n) => String(n.attempts)], ['NEXT', (n) => n.next_at], ['LAST ERROR', (n) => n.last_error],
  ];

  protected useCase(): typeof ListNotifications {
    return ListNotifications;
  }
}
