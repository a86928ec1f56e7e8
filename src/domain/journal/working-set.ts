import type { Approval } from '../approval';
import type { LedgerChange } from '../spend/ledger-entry';
import type { JournalEvent } from './journal-event';
import type { ReorgResponseRecord } from '../reorg';
import type { Run } from '../run';
import type { SendAttempt } from '../send-attempt';
import type { ReplaySession, WorkflowStateRecord, WorkflowStats } from '../session';

/**
 * The projection rows an append touches, loaded before the events are applied. A storage adapter loads
 * what the batch refers to (see `references`), the projector mutates it, and the adapter writes back the
 * rows named in the ChangeSet, in the same transaction as the events.
 */
export interface WorkingSet {
  readonly runs: Map<string, Run>;
  readonly sends: Map<string, SendAttempt>;
  readonly approvals: Map<string, Approval>;
  readonly reorgs: Map<string, ReorgResponseRecord>;
  readonly sessions: Map<string, ReplaySession>;
  readonly workflows: Map<string, WorkflowStateRecord>;
  /** What the batch adds to the overview statistics of the workflows whose runs it touches (deltas; not loaded). */
  readonly workflowStats: Map<string, WorkflowStats>;
  /** `stream + '\n' + hash` of every stored event of the loaded streams. */
  readonly eventKeys: Set<string>;
}

export function emptyWorkingSet(): WorkingSet {
  return {
    runs: new Map(), sends: new Map(), approvals: new Map(), reorgs: new Map(),
    sessions: new Map(), workflows: new Map(), workflowStats: new Map(), eventKeys: new Set(),
  };
}

/** An event as stored: its stream (the run it belongs to, or `session:<id>` / `workflow:<name>`). */
export interface StoredEvent {
  readonly stream: string;
  readonly hash: string;
  readonly type: string;
  readonly at: number;
  /** The event itself (stored as JSON). */
  readonly event: JournalEvent;
}

/** What an append changed: keys of the rows to write back, and the new events. */
export class ChangeSet {
  readonly runs = new Set<string>();
  /** Runs whose relayer / tx hash / step id lists grew (their side index rows must be written). */
  readonly runLists = new Set<string>();
  readonly sends = new Set<string>();
  readonly approvals = new Set<string>();
  readonly reorgs = new Set<string>();
  readonly sessions = new Set<string>();
  readonly workflows = new Set<string>();
  readonly workflowStats = new Set<string>();
  readonly events: StoredEvent[] = [];
  /**
   * What the terminal settles of landed sends, and the reorgs of their blocks, leave for the spend ledger, in order
   * (written in the same transaction).
   */
  readonly ledger: LedgerChange[] = [];
  duplicates = 0;

  /** Adds what `from` changed (appends applied one after the other over the same working set). */
  absorb(from: ChangeSet): void {
    const sets = ['runs', 'runLists', 'sends', 'approvals', 'reorgs', 'sessions', 'workflows', 'workflowStats'] as const;
    for (const name of sets) for (const key of from[name]) this[name].add(key);
    this.events.push(...from.events);
    this.ledger.push(...from.ledger);
    this.duplicates += from.duplicates;
  }
}
