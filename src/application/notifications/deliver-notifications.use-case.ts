import { inject, injectable } from 'inversify';
import { afterFailure, type DeliveryResult, type Notification } from '../../domain/notifications/notification';
import { Redactor } from '../../domain/redactor';
import { Clock } from '../ports/clock';
import { Logger } from '../ports/logger';
import { NotificationChannels, NotificationOutbox } from '../ports/notification-outbox';

/**
 * A claim outlives one attempt (a channel gets at most 10 s, see the channels adapter) with room to record its
 * end; a process that dies holding rows frees them this long after, for the next drain anywhere.
 */
const CLAIM_MS = 30_000;
/** Rows attempted at once by one drain: a slow receiver holds up no more than this many others. */
const BATCH = 16;

/**
 * Delivers what the notifications outbox holds that is due (CONTRACT 11): each row claimed, attempted over its
 * channel, then recorded delivered, due again after the backoff, or failed past 24 h. Run by the engine's loop, and
 * poked when a row is added so that a notification does not wait for the next tick.
 */
@injectable()
export class DeliverNotifications {
  private owner: string | undefined;
  private draining: Promise<void> | undefined;
  private again = false;

  constructor(
    @inject(NotificationOutbox) private readonly outbox: NotificationOutbox,
    @inject(NotificationChannels) private readonly channels: NotificationChannels,
    @inject(Clock) private readonly clock: Clock,
    @inject(Logger) private readonly logger: Logger,
    @inject(Redactor) private readonly redactor: Redactor,
  ) {}

  /** From now on `poke` delivers, as `owner` (the engine's lease owner id); before, rows wait for an engine. */
  start(owner: string): void {
    this.owner = owner;
  }

  /** No new drain starts; one under way finishes (its rows settle, or their claims run out). */
  async stop(): Promise<void> {
    this.owner = undefined;
    await this.draining;
  }

  /** Drains now, in the background; a drain under way runs once more when it ends. */
  poke(): void {
    const owner = this.owner;
    if (owner === undefined) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drain(owner).then(() => undefined)
      .catch((err: unknown) => this.logger.warn('notifications: outbox drain failed', { err: this.redactor.redactText(err instanceof Error ? err.message : String(err)) }))
      .finally(() => {
        this.draining = undefined;
        if (this.again) {
          this.again = false;
          this.poke();
        }
      });
  }

  /** Attempts every due row until none is left; resolves with how many were attempted. */
  async drain(owner: string): Promise<number> {
    let attempted = 0;
    for (;;) {
      const now = this.clock.now();
      const rows = await this.outbox.claimDue(owner, now, now + CLAIM_MS, BATCH);
      if (rows.length === 0) return attempted;
      attempted += rows.length;
      await Promise.all(rows.map((row) => this.attempt(row, owner)));
    }
  }

  private async attempt(row: Notification, owner: string): Promise<void> {
    const answer = await this.channels.deliver(row).catch((err: unknown) => ({ ok: false as const, error: err instanceof Error ? err.message : String(err), permanent: false }));
    const attempts = row.attempts + 1;
    let result: DeliveryResult;
    if (answer.ok) result = { kind: 'delivered' };
    else {
      const error = this.redactor.redactText(answer.error);
      result = answer.permanent ? { kind: 'failed', error } : afterFailure(row, attempts, error, this.clock.now());
    }
    await this.outbox.settle(row.id, owner, result);
    if (result.kind === 'delivered') return;
    const fields = { id: row.id, channel: row.channel, type: row.type, run_id: row.runId, attempts, error: result.error };
    if (result.kind === 'failed') this.logger.warn('notification given up', fields);
    else this.logger.warn('notification refused; retried later', { ...fields, next_at: new Date(result.nextAt).toISOString() });
  }
}
