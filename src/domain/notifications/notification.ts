/**
 * Notifications (CONTRACT 11): what an operator is told without looking, one outbox row per (event, channel).
 * A row is delivered at least once, always under the same id (the Standard Webhooks `webhook-id`), so a receiver
 * can drop repeats.
 */

/** What a workflow's `notify.on` may list. `event_lag` has no producer yet: accepted, never sent. */
export const NOTIFICATION_TYPES = [
  'run_failed', 'run_dead_lettered', 'budget_exceeded', 'approval_requested', 'relayer_low_balance', 'reorg', 'event_lag',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number] | 'test';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** A delivery in the outbox. `data` is already redacted: it is stored and sent as it is. */
export interface Notification {
  readonly id: string;
  readonly channel: string;
  readonly type: NotificationType;
  readonly runId: string | null;
  readonly workflow: string | null;
  /** When the event happened (ms); the body's `at`. */
  readonly at: number;
  readonly data: Readonly<Record<string, unknown>>;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly lastError: string | null;
  /** When it entered the outbox (ms); the 24 h give-up counts from here. */
  readonly createdAt: number;
  /** When the next attempt is due (ms). */
  readonly nextAt: number;
}

/** How an attempt ended, as the outbox records it. */
export type DeliveryResult =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'retry'; readonly error: string; readonly nextAt: number }
  | { readonly kind: 'failed'; readonly error: string };

/** The first retry waits this long (CONTRACT 11: within 10 s), then each wait doubles. */
export const FIRST_RETRY_MS = 5_000;
/** Waits stop doubling here. */
export const MAX_RETRY_MS = 5 * 60_000;
/** A delivery still refused this long after it entered the outbox is given up (`failed`). */
export const GIVE_UP_AFTER_MS = 24 * 60 * 60_000;

/** A new outbox row, pending and due at once. */
export function newNotification(n: Pick<Notification, 'id' | 'channel' | 'type' | 'runId' | 'workflow' | 'at' | 'data'>, now: number): Notification {
  return { ...n, status: 'pending', attempts: 0, lastError: null, createdAt: now, nextAt: now };
}

/**
 * What follows a refused attempt: the next one after 5 s, 10 s, 20 s … up to 5 min, or `failed` once the next
 * attempt would fall past 24 h from the row's creation. `attempts` counts the attempt that just failed.
 */
export function afterFailure(n: Pick<Notification, 'createdAt'>, attempts: number, error: string, now: number): DeliveryResult {
  const wait = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(30, Math.max(0, attempts - 1)));
  const nextAt = now + wait;
  if (nextAt - n.createdAt > GIVE_UP_AFTER_MS) return { kind: 'failed', error };
  return { kind: 'retry', error, nextAt };
}
