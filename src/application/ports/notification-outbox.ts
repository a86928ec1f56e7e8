import type { DeliveryResult, Notification } from '../../domain/notifications/notification';
import type { ListFilter } from './history-repository';
import type { PageRequest } from './run-repository';

/**
 * The notifications outbox (CONTRACT 11): deliveries kept in storage until a channel took them or 24 h passed, so
 * that they survive restarts; a due row is claimed by one process at a time, never delivered twice at once.
 */
export interface NotificationOutbox {
  /** Adds pending rows; a row whose id is there already is left as it is (the same event noted twice). */
  enqueue(rows: readonly Notification[]): Promise<void>;
  /**
   * Claims up to `limit` pending rows due at `now` that no other claim holds (or whose claim ran out), for `owner`
   * until `claimUntil` (ms), oldest due first.
   */
  claimDue(owner: string, now: number, claimUntil: number, limit: number): Promise<Notification[]>;
  /**
   * Records how an attempt ended and lets the claim go: counts the attempt, sets the status, the error and the next
   * due time. Only while `owner` holds the claim; otherwise nothing changes and false is answered.
   */
  settle(id: string, owner: string, result: DeliveryResult): Promise<boolean>;
  /**
   * Rows newest first on (created_at, id), strictly after `page.after`. `filter.equals` may name `channel`,
   * `type`, `run_id` and `status`; `since` / `until` bound created_at.
   */
  list(filter: ListFilter, page: PageRequest): Promise<Notification[]>;
}
export const NotificationOutbox = Symbol('NotificationOutbox');

/**
 * What a channel answered to one attempt: taken (2xx), or refused with a reason (status, timeout, network);
 * `permanent` when no retry can help (the channel is no longer configured).
 */
export type ChannelAnswer = { readonly ok: true } | { readonly ok: false; readonly error: string; readonly permanent?: boolean };

/** Sends one delivery over its channel (a Standard Webhooks POST, a Slack incoming webhook). */
export interface NotificationChannels {
  deliver(notification: Notification): Promise<ChannelAnswer>;
}
export const NotificationChannels = Symbol('NotificationChannels');
