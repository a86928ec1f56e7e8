import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import type { WorkflowStates } from '../../application/ports/workflow-states';
import { Database } from './knex-journal.writer';

/** Pause states from the `workflow_states` projection. */
@injectable()
export class KnexWorkflowStates implements WorkflowStates {
  constructor(@inject(Database) private readonly db: Knex) {}

  async paused(workflow: string): Promise<boolean | undefined> {
    const row = await this.db('workflow_states').where({ workflow }).first('paused');
    return row ? Boolean(Number(row.paused)) : undefined;
  }
}
