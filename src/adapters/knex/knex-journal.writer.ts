import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import type { JournalEvent } from '../../domain/journal/journal-event';
import { isStreamConflict } from './storage-failure';
import { applyEvents, contentHashes, references } from '../../domain/journal/projector';
import { ChangeSet, emptyWorkingSet, type WorkingSet } from '../../domain/journal/working-set';
import type { AppendOptions, AppendResult, JournalWriter, LeaseFence } from '../../application/ports/journal-writer';
import { checkFences, selectFenced, unschedule, wake } from './engine-runs-sql';
import { insertRows, selectIn, type Db } from './bulk';
import { READER_CACHE_KIB, WRITER_CACHE_KIB } from './connection';
import { dialectOf, isWriteSession, type WriteSession } from './dialect';
import { RUN_LIST_TABLES } from './migrations';
import { addPending, entryKey, writeLedgerChanges } from './spend-store';
import { writeReceiptBlocks } from './send-receipt-blocks';
import { addWorkflowStats } from './workflow-stats-store';
import { startedSessions, writeRuns, writeSessions } from './journal-row-writes';
import { GroupCommits, POSTGRES_WRITERS, type Waiting } from './journal-groups';
import { RUNS_WITH_STEP_RUNS, STEP_RUNS_COLUMNS, stepRunsOfRow, writeStepRuns, type StepRuns } from './step-runs-store';
import {
  APPROVAL_COLUMNS, REORG_COLUMNS, RUN_COLUMNS, SEND_COLUMNS, WORKFLOW_COLUMNS,
  approvalToRow, reorgToRow, rowToApproval, rowToReorg, rowToRun, rowToSend, rowToSession, rowToWorkflow, runToRow,
  sendToRow, workflowToRow,
} from './rows';

/** The columns of `sends`, `approvals` and `runs` the writer reads back: not their stored `item` (migrations 0010, 0012). */
const SENDS_READ = SEND_COLUMNS.map((c) => `"${c}"`).join(', ');
const APPROVALS_READ = APPROVAL_COLUMNS.map((c) => `"${c}"`).join(', ');
const RUNS_READ = RUN_COLUMNS.map((c) => `runs."${c}"`).join(', ');

export const Database = Symbol('Database');

/** Appends smaller than this skip the page-cache widening (three statements that cost more than they save). */
const SMALL_APPEND = 1000;

/** The rows a batch refers to, and the next ordinal of each stream that already holds events. */
interface Loaded {
  readonly ws: WorkingSet;
  readonly nextSeq: Map<string, number>;
  /** Each loaded run's row as stored (runToRow), to write back only the columns that changed. */
  readonly storedRuns: Map<string, unknown[]>;
  /** Each loaded session's run count as stored (or as the batch before writes it): a write adds only what the batch counted. */
  readonly sessionCounts: Map<string, number>;
  /** Every stream whose stored events (keys and next ordinal) this batch knows in full. */
  readonly streams: Set<string>;
  /** The export's step runs of the loaded runs that have some (see step-runs-store), as stored or as the batch before leaves them. */
  readonly stepRuns: Map<string, StepRuns>;
  /**
   * Read ahead (see `applyPipelined`): the ledger entries stored for the step runs the batch refers to, as `entryKey`s; the
   * batch's own entries are added as they are written. Otherwise undefined: the ledger append checks for itself.
   */
  readonly ledgerKeys?: Set<string>;
}

/**
 * The journal's write side on knex: each batch loads the projection rows it refers to, folds the events
 * with the domain projector, and writes the changed rows and the new events in the same transaction.
 * Within a stream of batches the writes of one batch run while the next batch is read and hashed.
 */
@injectable()
export class KnexJournalWriter implements JournalWriter {
  /** Small appends, written together (see GroupCommits): one group at a time on SQLite, several on PostgreSQL. */
  private readonly groups: GroupCommits;

  constructor(@inject(Database) private readonly db: Knex) {
    this.groups = new GroupCommits(dialectOf(db).oneWriter ? 1 : POSTGRES_WRITERS, (group) => this.commitGroup(group));
  }

  /**
   * Small appends wait for a free writer and are then written together in one transaction; each still succeeds
   * or fails on its own (see `commitGroup`). Large ones (imports) have a transaction of their own.
   */
  async append(events: readonly JournalEvent[], options: AppendOptions = {}): Promise<AppendResult> {
    if (events.length >= SMALL_APPEND) return this.appendWith(oneBatch(events), undefined, true, options, events);
    return new Promise((resolve, reject) => this.groups.push({ events, options, resolve, reject }));
  }

  /**
   * One transaction for the whole group. Should it fail (one append's events refused, say), each append of the
   * group is written again alone, so that only the one at fault fails, with its own error.
   */
  private async commitGroup(group: readonly Waiting[]): Promise<void> {
    try {
      const results = await this.transact((db) => this.applyGroup(db, group));
      group.forEach((w, i) => w.resolve(results[i]!));
      return;
    } catch (err) {
      if (group.length === 1) {
        group[0]!.reject(err);
        return;
      }
    }
    for (const w of group) {
      await this.transact((db) => this.applyGroup(db, [w])).then((results) => w.resolve(results[0]!), (err: unknown) => w.reject(err));
    }
  }

  /** Applies each append's events in turn over one working set, and writes what they changed together. */
  private async applyGroup(trx: Db, group: readonly Pick<Waiting, 'events' | 'options'>[]): Promise<AppendResult[]> {
    const appends = group.map((w) => w.events);
    const all = appends.length === 1 ? appends[0]! : appends.flat();
    const hashes = contentHashes(all);
    // The fences are checked with the runs' rows (selectFenced).
    const loaded = await this.load(trx, all, undefined, group.flatMap((w) => (w.options.fence ? [w.options.fence] : [])));
    const { ws } = loaded;
    const changes = new ChangeSet();
    const results: AppendResult[] = [];
    let offset = 0;
    for (const events of appends) {
      const ch = applyEvents(ws, events, 0, hashes.slice(offset, offset + events.length));
      offset += events.length;
      results.push({ applied: ch.events.length, duplicates: ch.duplicates });
      changes.absorb(ch);
    }
    // The wakes first: a run one append wakes may be one another append of the group takes off the schedule.
    for (const w of group) if (w.options.wake) await wake(trx, w.options.wake);
    await this.write(trx, ws, changes, loaded, group.flatMap((w) => (w.options.unschedule ? [w.options.unschedule] : [])));
    return results;
  }

  async appendAll(batches: AsyncIterable<readonly JournalEvent[]>, onBatch?: (done: AppendResult) => void): Promise<AppendResult> {
    return this.appendWith(batches, onBatch, true, { bulkLoad: true });
  }

  /**
   * One write transaction: on SQLite a write session (a few driver trips per transaction, see
   * WriteSession), elsewhere a knex transaction. Where several processes write (PostgreSQL), the key of
   * `events` (stream, seq) is the expected-sequence check: a writer that read a stream before another's append to it
   * committed inserts an ordinal that is taken, and its whole transaction is rolled back and done again on what is
   * now stored (its events may then be duplicates). `work` must be safe to run again.
   */
  private async transact<T>(work: (db: Db) => Promise<T>, bulkLoad = false): Promise<T> {
    const sessions = dialectOf(this.db).writeSessions;
    if (sessions) return sessions.transact(this.db, work, { bulkLoad });
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.transaction(work);
      } catch (err) {
        if (attempt >= STREAM_CONFLICT_TRIES || !isStreamConflict(err)) throw err;
        // A short, growing, jittered pause: two writers that clashed do not clash again in lockstep.
        await new Promise((resolve) => setTimeout(resolve, attempt * (2 + Math.random() * 8)));
      }
    }
  }

  /**
   * `wideCache`: widen SQLite's page cache for the transaction (worth it for imports, not for a few events). A stream
   * of batches is read once: a stream conflict (see `transact`) fails it rather than repeat it; one batch is repeated.
   */
  private appendWith(batches: AsyncIterable<readonly JournalEvent[]>, onBatch: ((done: AppendResult) => void) | undefined, wideCache: boolean, options: AppendOptions & { bulkLoad?: boolean } = {}, repeatable?: readonly JournalEvent[]): Promise<AppendResult> {
    return this.transact(async (db) => {
      if (repeatable) batches = oneBatch(repeatable);
      if (options.fence) await checkFences(db, [options.fence]);
      const result = await this.applyWith(db, batches, onBatch, wideCache);
      if (options.wake) await wake(db, options.wake);
      if (options.unschedule) await unschedule(db, [options.unschedule]);
      return result;
    }, options.bulkLoad);
  }

  private async applyWith(db: Db, batches: AsyncIterable<readonly JournalEvent[]>, onBatch: ((done: AppendResult) => void) | undefined, wideCache: boolean): Promise<AppendResult> {
    if (!wideCache || !isWriteSession(db)) return this.applyAll(db, batches, onBatch);
    // A wide page cache while the indexes are updated; the connection's own size again afterwards.
    const [previous] = (await db.select('PRAGMA cache_size')) as { cache_size: number }[];
    await db.select(`PRAGMA cache_size = ${WRITER_CACHE_KIB}`);
    try {
      return await this.applyAll(db, batches, onBatch);
    } finally {
      await db.select(`PRAGMA cache_size = ${Number(previous?.cache_size ?? READER_CACHE_KIB)}`);
    }
  }

  private async applyAll(trx: Db, batches: AsyncIterable<readonly JournalEvent[]>, onBatch?: (done: AppendResult) => void): Promise<AppendResult> {
    if (isWriteSession(trx)) return this.applyPipelined(trx, batches, onBatch);
    let applied = 0;
    let duplicates = 0;
    let offset = 0;
    for await (const batch of batches) {
      if (!batch.length) continue;
      const hashes = contentHashes(batch);
      const loaded = await this.load(trx, batch);
      const changes = applyEvents(loaded.ws, batch, offset, hashes);
      offset += batch.length;
      applied += changes.events.length;
      duplicates += changes.duplicates;
      await this.write(trx, loaded.ws, changes, loaded);
      onBatch?.({ applied, duplicates });
    }
    return { applied, duplicates };
  }

  /**
   * A stream of batches on a write session, as a pipeline over SQLite's thread and the main thread: a batch's stored
   * rows are read before the batch before it is written (what that batch changed is taken from its working set, the
   * rows as its writes leave them), then that batch's writes go to SQLite (one script) while this one is hashed,
   * folded and its writes built, and the next one parsed. SQLite runs one statement at a time on the connection, so
   * the reads always see every earlier batch but the one held back.
   */
  private async applyPipelined(session: WriteSession, batches: AsyncIterable<readonly JournalEvent[]>, onBatch?: (done: AppendResult) => void): Promise<AppendResult> {
    let applied = 0;
    let duplicates = 0;
    let offset = 0;
    let prev: Loaded | undefined;
    for await (const batch of batches) {
      if (!batch.length) continue;
      const loaded = await this.load(session, batch, { prev });
      session.flushSoon();
      const changes = applyEvents(loaded.ws, batch, offset, contentHashes(batch));
      offset += batch.length;
      applied += changes.events.length;
      duplicates += changes.duplicates;
      // Built in full (SQL text) before the next batch's fold changes the same objects.
      await this.write(session, loaded.ws, changes, loaded);
      prev = loaded;
      onBatch?.({ applied, duplicates });
    }
    return { applied, duplicates };
  }

  /**
   * The rows a batch refers to. With `ahead`, the reads go before the writes the session holds back (the batch
   * before's, `ahead.prev`): every row that batch loaded or changed is taken from it instead, as are its streams'
   * events and its ledger entries.
   */
  private async load(trx: Db, events: readonly JournalEvent[], ahead?: { readonly prev: Loaded | undefined }, fences: readonly LeaseFence[] = []): Promise<Loaded> {
    const prev = ahead?.prev;
    const select = (table: string, column: string, values: Iterable<string>, columns?: string): Promise<Record<string, unknown>[]> =>
      selectIn(trx, table, column, values, columns, { ahead: !!ahead });
    /** Ids `prev` holds go into `mine` from it; the others are returned, to be read. */
    const carry = <T>(ids: Iterable<string>, mine: Map<string, T>, theirs: Map<string, T> | undefined): string[] => {
      const rest: string[] = [];
      for (const id of ids) {
        const held = theirs?.get(id);
        if (held) mine.set(id, held);
        else rest.push(id);
      }
      return rest;
    };
    const refs = references(events);
    const ws = emptyWorkingSet();
    for (const row of await select('sends', 'send_id', carry(refs.sendIds, ws.sends, prev?.ws.sends), SENDS_READ)) {
      const send = rowToSend(row);
      ws.sends.set(send.sendId, send);
    }
    for (const row of await select('approvals', 'approval_id', carry(refs.approvalIds, ws.approvals, prev?.ws.approvals), APPROVALS_READ)) {
      const approval = rowToApproval(row);
      ws.approvals.set(approval.approvalId, approval);
    }
    for (const row of await select('reorgs', 'reorg_id', carry(refs.reorgIds, ws.reorgs, prev?.ws.reorgs))) {
      const reorg = rowToReorg(row);
      ws.reorgs.set(reorg.reorgId, reorg);
    }
    const runIds = new Set(refs.runIds);
    for (const send of ws.sends.values()) runIds.add(send.runId);
    for (const approval of ws.approvals.values()) runIds.add(approval.runId);
    for (const reorg of ws.reorgs.values()) runIds.add(reorg.runId);
    const storedRuns = new Map<string, unknown[]>();
    const nextSeq = new Map<string, number>();
    const streams = new Set<string>();
    const noteEvent = (stream: string, seq: number, hash: string): void => {
      ws.eventKeys.add(`${stream}\n${hash}`);
      nextSeq.set(stream, Math.max(nextSeq.get(stream) ?? 1, seq + 1));
    };
    /** A stream's stored event keys (`event_keys`, StoreDialect.streamKeys) read with the row that is its. */
    const keysOf = (stream: string, row: Record<string, unknown>): void => {
      for (const [seq, hash] of JSON.parse(String(row.event_keys)) as [number, string][]) noteEvent(stream, seq, hash);
      streams.add(stream);
    };
    // A run's stored event keys and its step runs come with its row: one statement for all (fewer trips per append,
    // which the engine makes at every step; on PostgreSQL each is a round trip).
    const columns = `${RUNS_READ}, ${dialectOf(trx).streamKeys('runs.run_id')} AS event_keys, ${STEP_RUNS_COLUMNS}`;
    const runsToRead = carry(runIds, ws.runs, prev?.ws.runs);
    const stepRuns = new Map<string, StepRuns>();
    if (prev) {
      for (const runId of ws.runs.keys()) {
        const held = prev.stepRuns.get(runId);
        if (held) stepRuns.set(runId, held);
      }
    }
    const runRows = fences.length ? await selectFenced(trx, fences, RUNS_WITH_STEP_RUNS, 'runs.run_id', runsToRead, columns) : await select(RUNS_WITH_STEP_RUNS, 'runs.run_id', runsToRead, columns);
    for (const row of runRows) {
      const run = rowToRun(row);
      ws.runs.set(run.runId, run);
      keysOf(run.runId, row);
      const state = stepRunsOfRow(row);
      if (state) stepRuns.set(run.runId, state);
    }
    // A run's row as stored: as read, or as the batch before writes it.
    for (const run of ws.runs.values()) storedRuns.set(run.runId, runToRow(run));
    // A session's and a workflow's rows come with their streams' event keys too, in one snapshot: read apart, another
    // writer's commit between the two reads would leave a row older than the ordinals, and nothing to collide on.
    const { streamKeys } = dialectOf(trx);
    for (const row of await select('sessions', 'session_id', carry(refs.sessionIds, ws.sessions, prev?.ws.sessions), `*, ${streamKeys("('session:' || sessions.session_id)")} AS event_keys`)) {
      const session = rowToSession(row);
      ws.sessions.set(session.sessionId, session);
      keysOf(`session:${session.sessionId}`, row);
    }
    const sessionCounts = new Map([...ws.sessions.values()].map((s) => [s.sessionId, s.runCount]));
    for (const row of await select('workflow_states', 'workflow', carry(refs.workflows, ws.workflows, prev?.ws.workflows), `*, ${streamKeys("('workflow:' || workflow_states.workflow)")} AS event_keys`)) {
      const wf = rowToWorkflow(row);
      ws.workflows.set(wf.workflow, wf);
      keysOf(`workflow:${wf.workflow}`, row);
    }
    // Only streams that already hold events can hold a duplicate, or need their ordinals continued.
    const wanted = [
      ...ws.runs.keys(),
      ...[...refs.sessionIds].map((id) => `session:${id}`),
      ...[...refs.workflows].map((w) => `workflow:${w}`),
    ].filter((stream) => !streams.has(stream));
    const fromPrev = new Set<string>();
    const toRead: string[] = [];
    for (const stream of wanted) {
      if (prev?.streams.has(stream)) fromPrev.add(stream);
      else toRead.push(stream);
    }
    for (const stream of toRead) streams.add(stream);
    for (const row of await select('events', 'stream', toRead, 'stream, seq, hash')) noteEvent(row.stream as string, Number(row.seq), row.hash as string);
    if (prev && fromPrev.size) {
      for (const key of prev.ws.eventKeys) if (fromPrev.has(key.slice(0, key.lastIndexOf('\n')))) ws.eventKeys.add(key);
      for (const stream of fromPrev) {
        streams.add(stream);
        const seq = prev.nextSeq.get(stream);
        if (seq !== undefined) nextSeq.set(stream, seq);
      }
    }
    if (!ahead) return { ws, nextSeq, storedRuns, sessionCounts, streams, stepRuns };
    // The ledger entries a batch's landed settles may repeat: those of its step runs (a settle's entry is its send's).
    const stepRunIds = new Set<string>();
    for (const e of events) if ('step_run_id' in e && typeof e.step_run_id === 'string') stepRunIds.add(e.step_run_id);
    for (const send of ws.sends.values()) stepRunIds.add(send.stepRunId);
    const ledgerKeys = new Set<string>();
    for (const row of await select('spend_entries', 'step_run_id', stepRunIds, 'step_run_id, tx_hash, reorged_at')) {
      if (Number(row.reorged_at) === 0) ledgerKeys.add(entryKey({ stepRunId: row.step_run_id as string, txHash: row.tx_hash as string }));
    }
    if (prev?.ledgerKeys) for (const key of prev.ledgerKeys) if (stepRunIds.has(key.slice(0, key.indexOf('\n')))) ledgerKeys.add(key);
    return { ws, nextSeq, storedRuns, sessionCounts, streams, stepRuns, ledgerKeys };
  }

  /**
   * Writes the changed rows and the new events of a batch, and takes the runs `unscheduled` off the engine's schedule.
   * Where the dialect defers writes (PostgreSQL), all but the ledger's go to the database as one statement.
   */
  private async write(trx: Db, ws: WorkingSet, ch: ChangeSet, { nextSeq, storedRuns, sessionCounts, streams, stepRuns, ledgerKeys }: Omit<Loaded, 'ws'>, unscheduled: readonly string[] = []): Promise<void> {
    // The spend ledger's share of landed settles, in the same transaction: a crash cannot separate them. First: unless
    // read ahead (`ledgerKeys`), its duplicate check is the only read here, and a session sends what it holds at a read.
    await writeLedgerChanges(trx, ch.ledger, ledgerKeys);
    const deferred = isWriteSession(trx) ? undefined : dialectOf(trx).deferWrites?.(trx);
    const db: Db = deferred ?? trx;
    const pick = <T>(keys: Set<string>, map: Map<string, T>): T[] => [...keys].map((k) => map.get(k)!);
    const lists = pick(ch.runLists, ws.runs);
    const events = ch.events.map((e) => {
      const seq = nextSeq.get(e.stream) ?? 1;
      nextSeq.set(e.stream, seq + 1);
      streams.add(e.stream);
      return [e.stream, seq, e.hash, e.type, e.at, e.event];
    });
    const writes: (() => Promise<void>)[] = [
      () => writeRuns(db, pick(ch.runs, ws.runs), storedRuns),
      ...Object.entries(RUN_LIST_TABLES).map(([field, { table, column }]) => () => {
        const rows = lists.flatMap((run) => (run[field as keyof typeof RUN_LIST_TABLES] as string[]).map((v) => [v, run.createdAt, run.runId]));
        return insertRows(db, table, [column, 'created_at', 'run_id'], rows, { conflictKey: [column, 'created_at', 'run_id'], ignoreConflicts: true });
      }),
      () => insertRows(db, 'sends', SEND_COLUMNS, pick(ch.sends, ws.sends).map(sendToRow), { conflictKey: ['send_id'] }),
      () => writeReceiptBlocks(db, pick(ch.sends, ws.sends)),
      () => insertRows(db, 'approvals', APPROVAL_COLUMNS, pick(ch.approvals, ws.approvals).map(approvalToRow), { conflictKey: ['approval_id'] }),
      () => insertRows(db, 'reorgs', REORG_COLUMNS, pick(ch.reorgs, ws.reorgs).map(reorgToRow), { conflictKey: ['reorg_id'] }),
      () => insertRows(db, 'workflow_states', WORKFLOW_COLUMNS, pick(ch.workflows, ws.workflows).map(workflowToRow), { conflictKey: ['workflow'] }),
      () => insertRows(db, 'events', ['stream', 'seq', 'hash', 'type', 'at', 'body'], events, { jsonColumns: ['body'] }),
      () => writeStepRuns(db, ch.events, stepRuns),
      () => addPending(db, ch.ledger.flatMap((l) => (l.kind === 'pending' ? [l.pending] : []))),
      () => unschedule(db, unscheduled),
      // Last: these rows are shared by every writer (a session's, a workflow's), and each holds its row's lock until the
      // commit; written here (PgWriteBatch's one statement runs them in this order too), other transactions (several
      // groups in flight, other processes) wait one round trip for it.
      () => writeSessions(db, pick(ch.sessions, ws.sessions), sessionCounts, startedSessions(ch)),
      () => addWorkflowStats(db, pick(ch.workflowStats, ws.workflowStats)),
    ];
    // One statement at a time: SQLite runs one statement per connection anyway, and queuing them all at once
    // only makes the driver's threads wait on each other.
    for (const write of writes) await write();
    await deferred?.send();
  }
}

/** How often a transaction is done again after a stream conflict (each retry reads what the winner wrote). */
const STREAM_CONFLICT_TRIES = 8;

async function* oneBatch(events: readonly JournalEvent[]): AsyncGenerator<readonly JournalEvent[]> {
  yield events;
}
