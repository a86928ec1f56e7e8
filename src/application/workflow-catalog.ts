import { inject, injectable } from 'inversify';
import type { WorkflowDefinition } from '../domain/engine/workflow';
import { ChainflowConfig } from './config';

/** The workflows the engine can run: every configured workflow that defines steps. */
@injectable()
export class WorkflowCatalog {
  private readonly byName: ReadonlyMap<string, WorkflowDefinition>;

  constructor(@inject(ChainflowConfig) config: ChainflowConfig) {
    this.byName = new Map([...config.workflows.values()].flatMap((w) => (w.engine ? [[w.name, w.engine] as const] : [])));
  }

  get(name: string): WorkflowDefinition | undefined {
    return this.byName.get(name);
  }

  all(): WorkflowDefinition[] {
    return [...this.byName.values()];
  }
}
