import { createHash } from 'node:crypto';
import { inject, injectable } from 'inversify';
import type { JournalEvent, RunStarted } from '../../domain/journal/journal-event';
import { newNotification, type Notification, type NotificationType } from '../../domain/notifications/notification';
import { Redactor } from '../../domain/redactor';
import { parseRfc3339 } from '../../domain/time';
import { ChainflowConfig, type NotifyRule } from '../config';
import { retryStorage } from '../engine/storage-retry';
import { Clock } from '../ports/clock';
import { Logger } from '../ports/logger';
import { NotificationOutbox } from '../ports/notification-outbox';
import { DeliverNotifications } from './deliver-notifications.use-case';

/** One event worth telling: its type, the key that makes its deliveries' ids, when it happened, what it says. */
interface Notice {
  readonly type: NotificationType;
  readonly key: string;
  readonly at: number;
  readonly data: Record<string, unknown>;
}

/**
 * The standard webhook-id of a delivery: the same event to the same channel always gets the same id, so an event
 * noted twice (a drive retried after a refused append) is one delivery, and a receiver can drop repeats.
 */
export function deliveryId(type: string, key: string, channel: string): string {
  return `msg_${createHash('sha256').update(`${type}\u0000${key}\u0000${channel}`).digest('hex').slice(0, 32)}`;
}

/**
 * Turns what a live run journaled into deliveries in the outbox (CONTRACT 11), per the workflow's `notify` rule
 * (else the top-level one): a run ended failed or dead-lettered, a send refused by its budget, an approval
 * requested, a reorg removed the run's log (`reorg`, from its `reorg.response`). Test and replay sessions notify nobody. Never fails the drive: what cannot be recorded is logged.
 */
@injectable()
export class NotifyRunEvents {
  constructor(
    @inject(ChainflowConfig) private readonly config: ChainflowConfig,
    @inject(NotificationOutbox) private readonly outbox: NotificationOutbox,
    @inject(DeliverNotifications) private readonly deliveries: DeliverNotifications,
    @inject(Redactor) private readonly redactor: Redactor,
    @inject(Clock) private readonly clock: Clock,
    @inject(Logger) private readonly logger: Logger,
  ) {}

  /** `events`: what was just journaled for the run `started` began. */
  async execute(started: RunStarted, events: readonly JournalEvent[]): Promise<void> {
    if (started.session !== 'live') return;
    const rule = this.config.workflows.get(started.workflow)?.notify ?? this.config.notify;
    if (!rule) return;
    const notices = noticesOf(started, events).filter((n) => rule.on.includes(n.type as NotifyRule['on'][number]));
    if (notices.length === 0) return;
    const now = this.clock.now();
    const rows: Notification[] = notices.flatMap((n) => rule.to.map((channel) => newNotification({
      id: deliveryId(n.type, n.key, channel), channel, type: n.type, runId: started.run_id, workflow: started.workflow, at: n.at,
      data: this.redactor.redact(n.data),
    }, now)));
    try {
      await retryStorage(() => this.outbox.enqueue(rows));
    } catch (err) {
      this.logger.warn('notifications not recorded', {
        run_id: started.run_id, workflow: started.workflow, types: notices.map((n) => n.type).join(','),
        err: this.redactor.redactText(err instanceof Error ? err.message : String(err)),
      });
      return;
    }
    this.deliveries.poke();
  }
}

const when = (e: JournalEvent): number => parseRfc3339(e.at) ?? Date.now();

/** The notices among a run's journaled events. */
function noticesOf(started: RunStarted, events: readonly JournalEvent[]): Notice[] {
  const run = { run_id: started.run_id, workflow: started.workflow };
  const notices: Notice[] = [];
  let failedStep: string | undefined;
  for (const e of events) {
    if (e.type === 'step.finished' && e.status === 'failed') {
      failedStep = e.step_run_id;
      if (e.error?.kind === 'budget_exceeded') {
        notices.push({ type: 'budget_exceeded', key: e.step_run_id, at: when(e), data: { ...run, step_run_id: e.step_run_id, error_kind: e.error.kind, message: e.error.message } });
      }
    } else if (e.type === 'approval.requested') {
      notices.push({
        type: 'approval_requested', key: e.approval_id, at: when(e),
        data: { ...run, approval_id: e.approval_id, step_run_id: e.step_run_id, message: e.message ?? null, expires_at: e.expires_at ?? null },
      });
    } else if (e.type === 'reorg.response') {
      notices.push({
        type: 'reorg', key: e.reorg_id, at: when(e),
        data: { ...run, reorg_id: e.reorg_id, network: e.network, block: e.block, removed_block_hash: e.removed_block_hash ?? null, depth: e.depth ?? null },
      });
    } else if (e.type === 'run.finished' && (e.status === 'failed' || e.status === 'dead_lettered')) {
      notices.push({
        type: e.status === 'failed' ? 'run_failed' : 'run_dead_lettered', key: e.run_id, at: when(e),
        data: { ...run, status: e.status, step_run_id: failedStep ?? null, error_kind: e.error?.kind ?? null, message: e.error?.message ?? null },
      });
    }
  }
  return notices;
}
