import { randomBytes } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { InvalidInputError } from '../../domain/errors';
import { newNotification, type Notification } from '../../domain/notifications/notification';
import { Redactor } from '../../domain/redactor';
import { ChainflowConfig } from '../config';
import { requireSecrets } from '../secrets-needed';
import { Clock } from '../ports/clock';
import { NotificationChannels, NotificationOutbox } from '../ports/notification-outbox';

/** How a test delivery went: its id (the webhook-id), and the channel's refusal if it refused. */
export interface TestDelivery {
  readonly id: string;
  readonly channel: string;
  readonly delivered: boolean;
  readonly error: string | null;
}

/**
 * `chainflow notifications test CHANNEL`: one delivery of type `test` over the channel, now, recorded in the
 * outbox as it ended. A refused test is recorded `failed`, never retried: the operator is reading its answer.
 */
@injectable()
export class TestNotification {
  constructor(
    @inject(ChainflowConfig) private readonly config: ChainflowConfig,
    @inject(NotificationOutbox) private readonly outbox: NotificationOutbox,
    @inject(NotificationChannels) private readonly channels: NotificationChannels,
    @inject(Redactor) private readonly redactor: Redactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(channel: string): Promise<TestDelivery> {
    if (!this.config.notifications?.has(channel)) {
      const names = [...(this.config.notifications?.keys() ?? [])];
      throw new InvalidInputError('channel', `names no configured notification channel ${names.length ? `(configured: ${names.join(', ')})` : '(none configured)'}`);
    }
    requireSecrets(this.config, [`notifications.${channel}`], `notifications test ${channel}`);
    const now = this.clock.now();
    const row = newNotification({
      id: `msg_test_${randomBytes(12).toString('hex')}`, channel, type: 'test', runId: null, workflow: null, at: now,
      data: { message: 'chainflow test delivery', channel },
    }, now);
    const answer = await this.channels.deliver(row);
    const error = answer.ok ? null : this.redactor.redactText(answer.error);
    const ended: Notification = { ...row, attempts: 1, status: answer.ok ? 'delivered' : 'failed', lastError: error };
    await this.outbox.enqueue([ended]);
    return { id: row.id, channel, delivered: answer.ok, error };
  }
}
