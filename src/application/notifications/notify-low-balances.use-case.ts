import { inject, injectable } from 'inversify';
import { newNotification, type Notification } from '../../domain/notifications/notification';
import { Redactor } from '../../domain/redactor';
import { toIso } from '../../domain/time';
import { ChainflowConfig } from '../config';
import { Clock } from '../ports/clock';
import { NotificationOutbox } from '../ports/notification-outbox';
import { RelayerBook } from '../relayers/relayer-book';
import { DeliverNotifications } from './deliver-notifications.use-case';
import { deliveryId } from './notify.use-case';

/**
 * `relayer_low_balance` (CONTRACT 11): a relayer whose balance is below its `low_balance` is told at most once per
 * relayer, channel and UTC day (the day is in the delivery's id, so several processes checking add one row). A
 * relayer belongs to no workflow: every rule that lists `relayer_low_balance`, top-level or a workflow's, gets it.
 */
@injectable()
export class NotifyLowBalances {
  constructor(
    @inject(ChainflowConfig) private readonly config: ChainflowConfig,
    @inject(RelayerBook) private readonly book: RelayerBook,
    @inject(NotificationOutbox) private readonly outbox: NotificationOutbox,
    @inject(DeliverNotifications) private readonly deliveries: DeliverNotifications,
    @inject(Redactor) private readonly redactor: Redactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** Resolves with how many deliveries were noted (repeats of today's included). */
  async execute(): Promise<number> {
    const rules = [this.config.notify, ...[...this.config.workflows.values()].map((w) => w.notify)];
    const channels = [...new Set(rules.flatMap((r) => (r?.on.includes('relayer_low_balance') ? r.to : [])))];
    const watched = [...this.config.relayers.values()].filter((r) => r.lowBalanceWei !== undefined).map((r) => r.name);
    if (channels.length === 0 || watched.length === 0) return 0;
    const now = this.clock.now();
    const day = toIso(now).slice(0, 10);
    const rows: Notification[] = [];
    for (const s of await this.book.statuses(watched, 'read')) {
      if (s.balanceWei === null || s.thresholdWei === null || s.balanceWei >= s.thresholdWei) continue;
      const data = this.redactor.redact({
        relayer: s.relayer, network: s.network, address: s.address, balance_wei: s.balanceWei.toString(), low_balance_threshold_wei: s.thresholdWei.toString(),
      });
      for (const channel of channels) {
        rows.push(newNotification({ id: deliveryId('relayer_low_balance', `${s.relayer}:${day}`, channel), channel, type: 'relayer_low_balance', runId: null, workflow: null, at: now, data }, now));
      }
    }
    if (rows.length === 0) return 0;
    await this.outbox.enqueue(rows);
    this.deliveries.poke();
    return rows.length;
  }
}
