import { JournalRejectedError } from '../../errors';
import type { Run } from '../../run';
import { parseRfc3339 } from '../../time';
import type { JournalEvent, JournalEventType } from '../journal-event';
import type { ChangeSet, WorkingSet } from '../working-set';

/**
 * What a reducer folds one event into: the working set it mutates, the change set naming what to write back,
 * and where the event stands in the append (its index, for a refusal; its time, parsed once). One Fold serves a
 * whole append, so that applying an event allocates no context of its own.
 */
export class Fold {
  /** Position of the event being applied in the whole append (0-based). */
  index = 0;
  /** Its `at`, epoch ms. */
  at = 0;

  constructor(readonly ws: WorkingSet, readonly ch: ChangeSet) {}

  /** Refuses the event being applied, naming why. */
  refuse(reason: string): never {
    throw new JournalRejectedError(this.index, reason);
  }

  /** The run an event names, which a run.started must have brought in. */
  run(runId: string): Run {
    return this.ws.runs.get(runId) ?? this.refuse('run_id: unknown run (no run.started before it)');
  }

  /** The run's row must be written back. */
  touch(run: Run): void {
    this.ch.runs.add(run.runId);
  }

  /** The run's relayer / tx hash / step id lists grew: their side index rows must be written too. */
  listsGrew(run: Run): void {
    this.ch.runLists.add(run.runId);
  }
}

/** Folds one event of type T into the projections it changes. */
export type Reducer<T extends JournalEventType> = (f: Fold, e: Extract<JournalEvent, { type: T }>) => void;

/** A reducer for every event type. */
export type Reducers = { readonly [T in JournalEventType]: Reducer<T> };

/** An optional RFC 3339 time of an event (validated on the way in) as epoch ms. */
export function msOrNull(iso: string | undefined): number | null {
  return iso === undefined ? null : (parseRfc3339(iso) as number);
}
