import { inject, injectable } from 'inversify';
import { InvalidInputError, NotFoundError } from '../../domain/errors';
import { lagBlocks } from '../../domain/session';
import { toIso } from '../../domain/time';
import type { ListEnvelope } from '../history/items';
import { Clock } from '../ports/clock';
import { CronCalendar } from '../ports/cron-calendar';
import { EngineStore } from '../ports/engine-store';
import { JournalWriter } from '../ports/journal-writer';
import { WorkflowStates } from '../ports/workflow-states';
import { WorkflowCatalog } from '../workflow-catalog';

/** A configured workflow as `chainflow workflows` and `GET /api/workflows` show it. */
export interface ConfiguredWorkflowItem {
  workflow: string;
  trigger: string;
  schedule: string | null;
  paused: boolean;
  /** Next cron tick (RFC 3339), null for other triggers or when paused. */
  next_tick_at: string | null;
  /** Runs of the workflow an engine process holds a live lease on now. */
  lease_holders: number;
  steps: string[];
  /** For an event trigger: its network, the last block its cursor read, the head it last saw, and the lag between (else null). */
  network: string | null;
  cursor_block: number | null;
  head_block: number | null;
  lag_blocks: number | null;
}

/** Pauses or resumes a configured workflow (CONTRACT 8.4): journals `workflow.state`. */
@injectable()
export class SetWorkflowPaused {
  constructor(
    @inject(WorkflowCatalog) private readonly catalog: WorkflowCatalog,
    @inject(JournalWriter) private readonly journal: JournalWriter,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(workflow: string, paused: boolean): Promise<{ workflow: string; paused: boolean }> {
    if (typeof workflow !== 'string' || !workflow) throw new InvalidInputError('workflow', 'is required');
    const definition = this.catalog.get(workflow);
    if (!definition) throw new NotFoundError(`workflow ${workflow}`);
    await this.journal.append([{ type: 'workflow.state', at: toIso(this.clock.now()), workflow, paused, trigger: definition.trigger.kind }]);
    return { workflow, paused };
  }
}

/** The configured workflows with their trigger, pause state, next cron tick, lease holders and event blocks. */
@injectable()
export class ListConfiguredWorkflows {
  constructor(
    @inject(WorkflowCatalog) private readonly catalog: WorkflowCatalog,
    @inject(WorkflowStates) private readonly states: WorkflowStates,
    @inject(EngineStore) private readonly store: EngineStore,
    @inject(CronCalendar) private readonly cron: CronCalendar,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(): Promise<ListEnvelope<ConfiguredWorkflowItem>> {
    const now = this.clock.now();
    const held = await this.store.heldCounts(now);
    const items: ConfiguredWorkflowItem[] = [];
    for (const w of this.catalog.all().sort((a, b) => a.name.localeCompare(b.name))) {
      const paused = (await this.states.paused(w.name)) ?? w.paused;
      const schedule = w.trigger.kind === 'cron' ? w.trigger.schedule : null;
      const next = schedule && !paused ? ((await this.store.cronNext(w.name)) ?? this.cron.next(schedule, now)) : undefined;
      const blocks = w.trigger.kind === 'event' ? await this.states.blocks(w.name) : undefined;
      const cursor = blocks?.cursorBlock ?? null;
      const head = blocks?.headBlock ?? null;
      items.push({
        workflow: w.name, trigger: w.trigger.kind, schedule, paused, next_tick_at: next === undefined ? null : toIso(next),
        lease_holders: held.get(w.name) ?? 0, steps: w.steps.map((s) => s.id),
        network: w.trigger.kind === 'event' ? w.trigger.network : null, cursor_block: cursor, head_block: head, lag_blocks: lagBlocks(cursor, head),
      });
    }
    return { items, cursor: null, has_more: false };
  }
}
