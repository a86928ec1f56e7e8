import type { Json } from '../../domain/journal/journal-event';

/** A `wait_event` step's wait (CONTRACT 8.6): the logs it waits for, from which block, until when, and its match. */
export interface EventWait {
  readonly stepRunId: string;
  readonly runId: string;
  readonly workflow: string;
  readonly network: string;
  readonly addresses: readonly string[];
  readonly event: string;
  /** CEL over `log` and `context`; none: the first log matches. */
  readonly where?: string;
  readonly confirmations: number;
  /** The run's expression context when the step started (trigger, steps, run): `where` may read it. */
  readonly context: Readonly<Record<string, Json>>;
  /** The next block to look at (the head at the step's start, plus one, at first). */
  readonly nextBlock: bigint;
  /** Epoch ms: no match by then, the step fails `event_timeout`. */
  readonly expiresAt: number;
  /** The matching log, decoded as a trigger's payload, with its block, tx and place; null while none matched. */
  readonly match: Json | null;
}

/** The open waits of `wait_event` steps, kept in storage so that a wait survives restarts and is watched by any process. */
export interface EventWaits {
  /** Records a wait, unless its step run has one already: answers the stored one (an attempt run again keeps its start). */
  open(wait: Omit<EventWait, 'match'>): Promise<EventWait>;
  get(stepRunId: string): Promise<EventWait | undefined>;
  /** The waits without a match yet. */
  pending(): Promise<EventWait[]>;
  /**
   * Moves a wait's next block from `expected` to `next`, with its match when one was found; false (nothing written)
   * when the wait is not at `expected` any more or has matched (another process moved it).
   */
  advance(stepRunId: string, expected: bigint, next: bigint, match?: Json): Promise<boolean>;
  /** The step finished: its wait is forgotten. */
  close(stepRunId: string): Promise<void>;
}
export const EventWaits = Symbol('EventWaits');
