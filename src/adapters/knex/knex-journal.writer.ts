import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import type { JournalEvent } from '../../domain/journal/journal-event';
import { applyEvents, references } from '../../domain/journal/projector';
import { emptyWorkingSet, type ChangeSet, type WorkingSet } from '../../domain/journal/working-set';
import type { AppendResult, JournalWriter } from '../../application/ports/journal-writer';
import { insertRows, selectIn } from './bulk';
import { RUN_LIST_TABLES } from './migrations';
import {
  APPROVAL_COLUMNS, REORG_COLUMNS, RUN_COLUMNS, SEND_COLUMNS, SESSION_COLUMNS, WORKFLOW_COLUMNS,
  approvalToRow, reorgToRow, rowToApproval, rowToReorg, rowToRun, rowToSend, rowToSession, rowToWorkflow, runToRow,
  sendToRow, sessionToRow, workflowToRow,
} from './rows';

export const Database = Symbol('Database');

/**
 * The journal's write side on knex: each batch loads the projection rows it refers to, folds the events
 * with the domain projector, and writes the changed rows and the new events in the same transaction.
 */
@injectable()
export class KnexJournalWriter implements JournalWriter {
  constructor(@inject(Database) private readonly db: Knex) {}

  async append(events: readonly JournalEvent[]): Promise<AppendResult> {
    return this.db.transaction((trx) => this.applyBatch(trx, events, 0));
  }

  async appendAll(batches: AsyncIterable<readonly JournalEvent[]>, onBatch?: (done: AppendResult) => void): Promise<AppendResult> {
    return this.db.transaction(async (trx) => {
      let applied = 0;
      let duplicates = 0;
      let offset = 0;
      for await (const batch of batches) {
        const result = await this.applyBatch(trx, batch, offset);
        offset += batch.length;
        applied += result.applied;
        duplicates += result.duplicates;
        onBatch?.({ applied, duplicates });
      }
      return { applied, duplicates };
    });
  }

  private async applyBatch(trx: Knex.Transaction, events: readonly JournalEvent[], offset: number): Promise<AppendResult> {
    if (!events.length) return { applied: 0, duplicates: 0 };
    const ws = await this.load(trx, events);
    const changes = applyEvents(ws, events, offset);
    await this.write(trx, ws, changes);
    return { applied: changes.events.length, duplicates: changes.duplicates };
  }

  private async load(trx: Knex.Transaction, events: readonly JournalEvent[]): Promise<WorkingSet> {
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
    for (const row of await selectIn(trx, 'runs', 'run_id', runIds)) {
      const run = rowToRun(row);
      ws.runs.set(run.runId, run);
    }
    for (const row of await selectIn(trx, 'sessions', 'session_id', refs.sessionIds)) {
      const session = rowToSession(row);
      ws.sessions.set(session.sessionId, session);
    }
    for (const row of await selectIn(trx, 'workflow_states', 'workflow', refs.workflows)) {
      const wf = rowToWorkflow(row);
      ws.workflows.set(wf.workflow, wf);
    }
    // Only streams that already hold events can hold a duplicate.
    const streams = [
      ...ws.runs.keys(),
      ...[...refs.sessionIds].map((id) => `session:${id}`),
      ...[...refs.workflows].map((w) => `workflow:${w}`),
    ];
    for (const row of await selectIn(trx, 'events', 'stream', streams, 'stream, hash')) {
      ws.eventKeys.add(`${row.stream as string}\n${row.hash as string}`);
    }
    return ws;
  }

  private async write(trx: Knex.Transaction, ws: WorkingSet, ch: ChangeSet): Promise<void> {
    const pick = <T>(keys: Set<string>, map: Map<string, T>): T[] => [...keys].map((k) => map.get(k)!);
    await insertRows(trx, 'runs', RUN_COLUMNS, pick(ch.runs, ws.runs).map(runToRow), { conflictKey: ['run_id'] });
    const lists = pick(ch.runLists, ws.runs);
    for (const [field, { table, column }] of Object.entries(RUN_LIST_TABLES)) {
      const rows = lists.flatMap((run) => (run[field as keyof typeof RUN_LIST_TABLES] as string[]).map((v) => [v, run.createdAt, run.runId]));
      await insertRows(trx, table, [column, 'created_at', 'run_id'], rows, { conflictKey: [column, 'created_at', 'run_id'], ignoreConflicts: true });
    }
    await insertRows(trx, 'sends', SEND_COLUMNS, pick(ch.sends, ws.sends).map(sendToRow), { conflictKey: ['send_id'] });
    await insertRows(trx, 'approvals', APPROVAL_COLUMNS, pick(ch.approvals, ws.approvals).map(approvalToRow), { conflictKey: ['approval_id'] });
    await insertRows(trx, 'reorgs', REORG_COLUMNS, pick(ch.reorgs, ws.reorgs).map(reorgToRow), { conflictKey: ['reorg_id'] });
    await insertRows(trx, 'sessions', SESSION_COLUMNS, pick(ch.sessions, ws.sessions).map(sessionToRow), { conflictKey: ['session_id'] });
    await insertRows(trx, 'workflow_states', WORKFLOW_COLUMNS, pick(ch.workflows, ws.workflows).map(workflowToRow), { conflictKey: ['workflow'] });
    await insertRows(trx, 'events', ['stream', 'hash', 'type', 'at', 'body'], ch.events.map((e) => [e.stream, e.hash, e.type, e.at, e.body]));
  }
}
