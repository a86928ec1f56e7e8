import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import type { JournalEvent } from '../../domain/journal/journal-event';
import type { Run } from '../../domain/run';
import { applyEvents, contentHashes, references } from '../../domain/journal/projector';
import { ChangeSet, emptyWorkingSet, type WorkingSet } from '../../domain/journal/working-set';
import type { AppendResult, JournalWriter } from '../../application/ports/journal-writer';
import { execute, insertRows, selectIn, type Db } from './bulk';
import { isSqlite, READER_CACHE_KIB, WRITER_CACHE_KIB } from './connection';
import { SqliteWriteSession } from './sqlite-session';
import { RUN_LIST_TABLES } from './migrations';
import { addPending, appendEntries } from './spend-store';
import { addWorkflowStats } from './workflow-stats-store';
import {
  APPROVAL_COLUMNS, REORG_COLUMNS, RUN_COLUMNS, SEND_COLUMNS, SESSION_COLUMNS, WORKFLOW_COLUMNS,
  approvalToRow, reorgToRow, rowToApproval, rowToReorg, rowToRun, rowToSend, rowToSession, rowToWorkflow, runToRow,
  sendToRow, sessionToRow, workflowToRow,
} from './rows';

export const Database = Symbol('Database');

/** Appends smaller than this skip the page-cache widening (three statements that cost more than they save). */
const SMALL_APPEND = 1000;

/**
 * Appends waiting together are written in one transaction (a group commit) of at most this many events: the
 * engine's many runs each append a few events at a time, and a transaction costs a handful of statements
 * whatever it holds.
 */
const GROUP_EVENTS = 2000;

/** An append waiting for the next group commit. */
interface Waiting {
  readonly events: readonly JournalEvent[];
  resolve(result: AppendResult): void;
  reject(err: unknown): void;
}

/** The rows a batch refers to, and the next ordinal of each stream that already holds events. */
interface Loaded {
  readonly ws: WorkingSet;
  readonly nextSeq: Map<string, number>;
  /** Each loaded run's row as stored (runToRow), to write back only the columns that changed. */
  readonly storedRuns: Map<string, unknown[]>;
}

/**
 * The journal's write side on knex: each batch loads the projection rows it refers to, folds the events
 * with the domain projector, and writes the changed rows and the new events in the same transaction.
 * Within a stream of batches the writes of one batch run while the next batch is read and hashed.
 */
@injectable()
export class KnexJournalWriter implements JournalWriter {
  private readonly waiting: Waiting[] = [];
  private committing = false;

  constructor(@inject(Database) private readonly db: Knex) {}

  /**
   * Small appends wait for the transaction under way (if any) and are then written together in the next one; each
   * still succeeds or fails on its own (see `commitGroup`). Large ones (imports) have a transaction of their own.
   */
  async append(events: readonly JournalEvent[]): Promise<AppendResult> {
    if (events.length >= SMALL_APPEND) {
      const batches = (async function* () {
        yield events;
      })();
      return this.appendWith(batches, undefined, true);
    }
    return new Promise((resolve, reject) => {
      this.waiting.push({ events, resolve, reject });
      this.commitNext();
    });
  }

  private commitNext(): void {
    if (this.committing || this.waiting.length === 0) return;
    let size = 0;
    let n = 0;
    while (n < this.waiting.length && (n === 0 || size + this.waiting[n]!.events.length <= GROUP_EVENTS)) size += this.waiting[n++]!.events.length;
    const group = this.waiting.splice(0, n);
    this.committing = true;
    void this.commitGroup(group).finally(() => {
      this.committing = false;
      this.commitNext();
    });
  }

  /**
   * One transaction for the whole group. Should it fail (one append's events refused, say), each append of the
   * group is written again alone, so that only the one at fault fails, with its own error.
   */
  private async commitGroup(group: readonly Waiting[]): Promise<void> {
    try {
      const results = await this.transact((db) => this.applyGroup(db, group.map((w) => w.events)));
      group.forEach((w, i) => w.resolve(results[i]!));
      return;
    } catch (err) {
      if (group.length === 1) {
        group[0]!.reject(err);
        return;
      }
    }
    for (const w of group) {
      await this.transact((db) => this.applyGroup(db, [w.events])).then((results) => w.resolve(results[0]!), (err: unknown) => w.reject(err));
    }
  }

  /** Applies each append's events in turn over one working set, and writes what they changed together. */
  private async applyGroup(trx: Db, appends: readonly (readonly JournalEvent[])[]): Promise<AppendResult[]> {
    const all = appends.length === 1 ? appends[0]! : appends.flat();
    const hashes = contentHashes(all);
    const loaded = await this.load(trx, all);
    const { ws } = loaded;
    const changes = new ChangeSet();
    const results: AppendResult[] = [];
    let offset = 0;
    for (const events of appends) {
      const ch = applyEvents(ws, events, 0, hashes.slice(offset, offset + events.length));
      offset += events.length;
      results.push({ applied: ch.events.length, duplicates: ch.duplicates });
      mergeChanges(changes, ch);
    }
    await this.write(trx, ws, changes, loaded);
    return results;
  }

  async appendAll(batches: AsyncIterable<readonly JournalEvent[]>, onBatch?: (done: AppendResult) => void): Promise<AppendResult> {
    return this.appendWith(batches, onBatch, true);
  }

  /**
   * One write transaction: on SQLite a write session (a few driver trips per transaction, see
   * SqliteWriteSession), elsewhere a knex transaction.
   */
  private transact<T>(work: (db: Db) => Promise<T>): Promise<T> {
    return isSqlite(this.db) ? SqliteWriteSession.transact(this.db, work) : this.db.transaction(work);
  }

  /** `wideCache`: widen SQLite's page cache for the transaction (worth it for imports, not for a few events). */
  private appendWith(batches: AsyncIterable<readonly JournalEvent[]>, onBatch: ((done: AppendResult) => void) | undefined, wideCache: boolean): Promise<AppendResult> {
    return this.transact(async (db) => {
      if (!wideCache || !(db instanceof SqliteWriteSession)) return this.applyAll(db, batches, onBatch);
      // A wide page cache while the indexes are updated; the connection's own size again afterwards.
      const [previous] = (await db.select('PRAGMA cache_size')) as { cache_size: number }[];
      await db.select(`PRAGMA cache_size = ${WRITER_CACHE_KIB}`);
      try {
        return await this.applyAll(db, batches, onBatch);
      } finally {
        await db.select(`PRAGMA cache_size = ${Number(previous?.cache_size ?? READER_CACHE_KIB)}`);
      }
    });
  }

  private async applyAll(trx: Db, batches: AsyncIterable<readonly JournalEvent[]>, onBatch?: (done: AppendResult) => void): Promise<AppendResult> {
    let applied = 0;
    let duplicates = 0;
    let offset = 0;
    let writing: Promise<void> = Promise.resolve();
    try {
      for await (const batch of batches) {
        if (!batch.length) continue;
        const hashes = contentHashes(batch);
        await writing;
        const loaded = await this.load(trx, batch);
        const changes = applyEvents(loaded.ws, batch, offset, hashes);
        offset += batch.length;
        applied += changes.events.length;
        duplicates += changes.duplicates;
        // A write session holds writes back: they start once all of the batch's are built, together (see
        // SqliteWriteSession), and run while the next batch is read and hashed.
        if (trx instanceof SqliteWriteSession) {
          await this.write(trx, loaded.ws, changes, loaded);
          trx.flushSoon();
        } else {
          writing = this.write(trx, loaded.ws, changes, loaded);
        }
        writing.catch(() => undefined);
        onBatch?.({ applied, duplicates });
      }
      await writing;
    } catch (err) {
      // Every statement must have finished before the transaction rolls back.
      await writing.catch(() => undefined);
      throw err;
    }
    return { applied, duplicates };
  }

  private async load(trx: Db, events: readonly JournalEvent[]): Promise<Loaded> {
    const refs = references(events);
    const ws = emptyWorkingSet();
    const runIds = new Set(refs.runIds);
    for (const row of await selectIn(trx, 'sends', 'send_id', refs.sendIds)) {
      const send = rowToSend(row);
      ws.sends.set(send.sendId, send);
      runIds.add(send.runId);
    }
    for (const row of await selectIn(trx, 'approvals', 'approval_id', refs.approvalIds)) {
      const approval = rowToApproval(row);
      ws.approvals.set(approval.approvalId, approval);
      runIds.add(approval.runId);
    }
    for (const row of await selectIn(trx, 'reorgs', 'reorg_id', refs.reorgIds)) {
      const reorg = rowToReorg(row);
      ws.reorgs.set(reorg.reorgId, reorg);
      runIds.add(reorg.runId);
    }
    const storedRuns = new Map<string, unknown[]>();
    const nextSeq = new Map<string, number>();
    const noteEvent = (stream: string, seq: number, hash: string): void => {
      ws.eventKeys.add(`${stream}\n${hash}`);
      nextSeq.set(stream, Math.max(nextSeq.get(stream) ?? 1, seq + 1));
    };
    // On SQLite a run's stored events come with its row (one query for both: one driver trip fewer per append).
    const withEvents = isSqlite(trx);
    const columns = withEvents
      ? "runs.*, (SELECT json_group_array(json_array(seq, hash)) FROM events WHERE events.stream = runs.run_id) AS event_keys"
      : '*';
    for (const row of await selectIn(trx, 'runs', 'run_id', runIds, columns)) {
      const run = rowToRun(row);
      ws.runs.set(run.runId, run);
      storedRuns.set(run.runId, runToRow(run));
      if (withEvents) for (const [seq, hash] of JSON.parse(String(row.event_keys)) as [number, string][]) noteEvent(run.runId, seq, hash);
    }
    for (const row of await selectIn(trx, 'sessions', 'session_id', refs.sessionIds)) {
      const session = rowToSession(row);
      ws.sessions.set(session.sessionId, session);
    }
    for (const row of await selectIn(trx, 'workflow_states', 'workflow', refs.workflows)) {
      const wf = rowToWorkflow(row);
      ws.workflows.set(wf.workflow, wf);
    }
    // Only streams that already hold events can hold a duplicate, or need their ordinals continued.
    const streams = [
      ...(withEvents ? [] : ws.runs.keys()),
      ...[...refs.sessionIds].map((id) => `session:${id}`),
      ...[...refs.workflows].map((w) => `workflow:${w}`),
    ];
    for (const row of await selectIn(trx, 'events', 'stream', streams, 'stream, seq, hash')) noteEvent(row.stream as string, Number(row.seq), row.hash as string);
    return { ws, nextSeq, storedRuns };
  }

  /** Writes the changed rows and the new events of a batch. */
  private async write(trx: Db, ws: WorkingSet, ch: ChangeSet, { nextSeq, storedRuns }: Pick<Loaded, 'nextSeq' | 'storedRuns'>): Promise<void> {
    const pick = <T>(keys: Set<string>, map: Map<string, T>): T[] => [...keys].map((k) => map.get(k)!);
    const lists = pick(ch.runLists, ws.runs);
    const events = ch.events.map((e) => {
      const seq = nextSeq.get(e.stream) ?? 1;
      nextSeq.set(e.stream, seq + 1);
      return [e.stream, seq, e.hash, e.type, e.at, e.event];
    });
    const writes: (() => Promise<void>)[] = [
      // The spend ledger's share of landed settles, in the same transaction: a crash cannot separate them. First: its
      // duplicate check is the batch's only read here, and a write session sends what it holds back at a read.
      async () => {
        await appendEntries(trx, ch.ledger.flatMap((l) => (l.kind === 'entry' ? [l.entry] : [])));
      },
      () => writeRuns(trx, pick(ch.runs, ws.runs), storedRuns),
      ...Object.entries(RUN_LIST_TABLES).map(([field, { table, column }]) => () => {
        const rows = lists.flatMap((run) => (run[field as keyof typeof RUN_LIST_TABLES] as string[]).map((v) => [v, run.createdAt, run.runId]));
        return insertRows(trx, table, [column, 'created_at', 'run_id'], rows, { conflictKey: [column, 'created_at', 'run_id'], ignoreConflicts: true });
      }),
      () => insertRows(trx, 'sends', SEND_COLUMNS, pick(ch.sends, ws.sends).map(sendToRow), { conflictKey: ['send_id'] }),
      () => insertRows(trx, 'approvals', APPROVAL_COLUMNS, pick(ch.approvals, ws.approvals).map(approvalToRow), { conflictKey: ['approval_id'] }),
      () => insertRows(trx, 'reorgs', REORG_COLUMNS, pick(ch.reorgs, ws.reorgs).map(reorgToRow), { conflictKey: ['reorg_id'] }),
      () => insertRows(trx, 'sessions', SESSION_COLUMNS, pick(ch.sessions, ws.sessions).map(sessionToRow), { conflictKey: ['session_id'] }),
      () => insertRows(trx, 'workflow_states', WORKFLOW_COLUMNS, pick(ch.workflows, ws.workflows).map(workflowToRow), { conflictKey: ['workflow'] }),
      () => addWorkflowStats(trx, pick(ch.workflowStats, ws.workflowStats)),
      () => insertRows(trx, 'events', ['stream', 'seq', 'hash', 'type', 'at', 'body'], events, { jsonColumns: ['body'] }),
      () => addPending(trx, ch.ledger.flatMap((l) => (l.kind === 'pending' ? [l.pending] : []))),
    ];
    // One statement at a time: SQLite runs one statement per connection anyway, and queuing them all at once
    // only makes the driver's threads wait on each other.
    for (const write of writes) await write();
  }
}

/** Adds what `from` changed to `into` (appends applied one after the other over the same working set). */
function mergeChanges(into: ChangeSet, from: ChangeSet): void {
  const sets = ['runs', 'runLists', 'sends', 'approvals', 'reorgs', 'sessions', 'workflows', 'workflowStats'] as const;
  for (const name of sets) for (const key of from[name]) into[name].add(key);
  into.events.push(...from.events);
  into.ledger.push(...from.ledger);
  into.duplicates += from.duplicates;
}

/**
 * Runs new to storage are inserted; a stored run gets an UPDATE of the columns that changed only. A run's row has
 * an index per filter; SQLite updates the indexes of the columns an UPDATE sets, so setting every column (an
 * upsert) rewrites thirteen index entries where a step's move changes none of them.
 */
async function writeRuns(db: Db, runs: readonly Run[], stored: ReadonlyMap<string, unknown[]>): Promise<void> {
  const fresh: unknown[][] = [];
  for (const run of runs) {
    const row = runToRow(run);
    const before = stored.get(run.runId);
    if (!before) {
      fresh.push(row);
      continue;
    }
    const changed = RUN_COLUMNS.flatMap((column, i) => (row[i] === before[i] ? [] : [i]));
    if (!changed.length) continue;
    await execute(db, `UPDATE runs SET ${changed.map((i) => `"${RUN_COLUMNS[i]}" = ?`).join(', ')} WHERE run_id = ?`, [...changed.map((i) => row[i]), run.runId]);
  }
  await insertRows(db, 'runs', RUN_COLUMNS, fresh, { conflictKey: ['run_id'] });
}
