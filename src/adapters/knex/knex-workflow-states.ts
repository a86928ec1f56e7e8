import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import type { WorkflowStates } from '../../application/ports/workflow-states';
import { Database } from './knex-journal.writer';

/** Pause states and event blocks from the `workflow_states` projection. */
@injectable()
export class KnexWorkflowStates implements WorkflowStates {
  constructor(@inject(Database) private readonly db: Knex) {}

  async paused(workflow: string): Promise<boolean | undefined> {
    const row = await this.db('workflow_states').where({ workflow }).first('paused');
    return row && row.paused !== null ? Boolean(Number(row.paused)) : undefined;
  }

  async blocks(workflow: string): Promise<{ cursorBlock: number | null; headBlock: number | null } | undefined> {
    const row = await this.db('workflow_states').where({ workflow }).first('cursor_block', 'head_block');
    if (!row) return undefined;
    const block = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
    return { cursorBlock: block(row.cursor_block), headBlock: block(row.head_block) };
  }
}
