import type { JournalEvent } from '../../domain/journal/journal-event';
import { references } from '../../domain/journal/projector';
import type { AppendOptions, AppendResult } from '../../application/ports/journal-writer';

/** How the journal writer gathers small appends into group commits, and how many it writes at once. */

/**
 * Appends waiting together are written in one transaction (a group commit) of at most this many events: the
 * engine's many runs each append a few events at a time, and a transaction costs a handful of statements
 * whatever it holds.
 */
export const GROUP_EVENTS = 2000;

/**
 * Group commits in flight at once on PostgreSQL. A group there is a dozen round trips, each waiting on the server,
 * so one process writing one group at a time left both idle most of the time; SQLite has one writer (its lock)
 * and keeps one group at a time. Within the knex pool (10), beside the engine's claims and renewals.
 */
export const POSTGRES_WRITERS = 4;

/**
 * While another group is in flight, a free writer waits for at least this many appends before it starts one: a group
 * costs the same few round trips whatever it holds, and a writer that took each append as it came (one at a time
 * behind a long group) spent them on one append. Half of an engine's runs in flight by default (`engine.concurrency`
 * 64; each run has one append at a time): about two groups in flight. Chosen by `bench --scale` on PostgreSQL among
 * 8 to 64 (docs/benchmarks.md): the least CPU a run with three workers. With no group in flight, whatever waits goes
 * at once.
 */
export const GROUP_WHILE_BUSY = 32;

/** An append waiting for a group commit. */
export interface Waiting {
  readonly events: readonly JournalEvent[];
  readonly options: AppendOptions;
  resolve(result: AppendResult): void;
  reject(err: unknown): void;
}

/**
 * Appends waiting for a writer. Up to `writers` groups are written at once (`commit`, which settles each append of
 * its group); a freed writer takes the next group at once.
 */
export class GroupCommits {
  private readonly waiting: Waiting[] = [];
  private inFlight = 0;
  /** The order keys (see orderKeys) of the groups in flight, each with how many of them hold it. */
  private readonly busy = new Map<string, number>();

  constructor(
    private readonly writers: number,
    private readonly commit: (group: readonly Waiting[]) => Promise<void>,
    private readonly whileBusy = GROUP_WHILE_BUSY,
  ) {}

  push(w: Waiting): void {
    this.waiting.push(w);
    this.commitNext();
  }

  private commitNext(): void {
    while (this.inFlight < this.writers && this.waiting.length > (this.inFlight > 0 ? this.whileBusy - 1 : 0)) {
      const group = this.nextGroup();
      if (group.length === 0) return;
      const keys = new Set(group.flatMap((w) => orderKeys(w.events)));
      for (const s of keys) this.busy.set(s, (this.busy.get(s) ?? 0) + 1);
      this.inFlight++;
      void this.commit(group).finally(() => {
        for (const s of keys) {
          const n = this.busy.get(s)! - 1;
          if (n === 0) this.busy.delete(s);
          else this.busy.set(s, n);
        }
        this.inFlight--;
        this.commitNext();
      });
    }
  }

  /**
   * The next group, in the order the appends came, of at most GROUP_EVENTS events. A stream's appends are written
   * in the order they came: an append whose stream a group in flight holds, or an append passed over before it
   * holds, waits for a later group (with one writer, nothing is ever passed over).
   */
  private nextGroup(): Waiting[] {
    const blocked = new Set(this.busy.keys());
    const group: Waiting[] = [];
    const rest: Waiting[] = [];
    let size = 0;
    let full = false;
    for (const w of this.waiting) {
      if (full) {
        rest.push(w);
        continue;
      }
      const keys = blocked.size > 0 ? orderKeys(w.events) : [];
      if (keys.some((k) => blocked.has(k))) {
        for (const k of keys) blocked.add(k);
        rest.push(w);
        continue;
      }
      if (group.length > 0 && size + w.events.length > GROUP_EVENTS) {
        full = true;
        rest.push(w);
        continue;
      }
      size += w.events.length;
      group.push(w);
    }
    this.waiting.splice(0, this.waiting.length, ...rest);
    return group;
  }
}

/**
 * What an append's events are written in order by: their runs (the streams of sends, approvals and reorgs are their
 * runs', but such an event names only its own id), sessions (a run of a replay session counts in its row) and
 * workflows.
 */
function orderKeys(events: readonly JournalEvent[]): string[] {
  const r = references(events);
  const prefixed = (prefix: string, ids: ReadonlySet<string>): string[] => [...ids].map((id) => `${prefix}:${id}`);
  return [
    ...r.runIds, ...prefixed('send', r.sendIds), ...prefixed('approval', r.approvalIds), ...prefixed('reorg', r.reorgIds),
    ...prefixed('session', r.sessionIds), ...prefixed('workflow', r.workflows),
  ];
}
