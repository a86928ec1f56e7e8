import { inject, injectable } from 'inversify';
import { CursorCodec } from '../../domain/cursor';
import { InvalidInputError } from '../../domain/errors';
import { Redactor } from '../../domain/redactor';
import { lagBlocks } from '../../domain/session';
import { toIso } from '../../domain/time';
import { ChainflowConfig } from '../config';
import { Clock } from '../ports/clock';
import { HistoryRepository, type WorkflowOverview } from '../ports/history-repository';
import { QueryParser, type ParamSpecs } from '../query/query-params';
import type { ListEnvelope } from './items';
import { CURSOR, HISTORY_LIMIT } from './run-query';

export interface WorkflowRow {
  workflow: string;
  paused: boolean;
  trigger: string | null;
  last_run_at: string | null;
  last_success_at: string | null;
  last_failure_at: string | null;
  success_count: number;
  failure_count: number;
  runs_waiting: number;
  median_duration_ms: number | null;
  p95_duration_ms: number | null;
  tx_count: number;
  recent_error_kind: string | null;
  cursor_block: number | null;
  head_block: number | null;
  lag_blocks: number | null;
}

/**
 * The workflows overview: one row per workflow (configured, or seen in the journal), by name. Everything
 * comes from statistics kept up to date as the journal is written; no run is read to answer.
 */
@injectable()
export class ListWorkflows {
  private readonly parser: QueryParser;

  constructor(
    @inject(HistoryRepository) private readonly history: HistoryRepository,
    @inject(ChainflowConfig) private readonly config: ChainflowConfig,
    @inject(CursorCodec) private readonly cursors: CursorCodec,
    @inject(Redactor) private readonly redactor: Redactor,
    @inject(Clock) clock: Clock,
  ) {
    this.parser = new QueryParser({ limit: HISTORY_LIMIT, cursor: CURSOR }, () => clock.now());
  }

  /** The parameters `execute` takes (limit, cursor): for the API's declaration. */
  get params(): ParamSpecs {
    return this.parser.specs;
  }

  async execute(query: Readonly<Record<string, unknown>>): Promise<ListEnvelope<WorkflowRow>> {
    const params = this.parser.parse(query);
    const limit = params.limit as number;
    // Workflows are listed by name; the cursor carries the last name shown.
    const afterName = params.cursor === undefined ? undefined : this.cursors.decodeKey('workflows', params.cursor as string);
    if (params.cursor !== undefined && afterName === undefined) throw new InvalidInputError('cursor', 'malformed or tampered cursor');
    const rows = await this.history.listWorkflows([...this.config.workflows.keys()], limit + 1, afterName);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const hasMore = rows.length > limit;
    return {
      items: page.map((row) => this.redactor.redact(this.toRow(row))),
      cursor: hasMore && last ? this.cursors.encodeKey('workflows', last.workflow) : null,
      has_more: hasMore,
    };
  }

  private toRow({ workflow, state, stats, runsWaiting }: WorkflowOverview): WorkflowRow {
    const definition = this.config.workflows.get(workflow)?.definition;
    const configured = definition?.trigger;
    const configuredTrigger = typeof configured === 'string' ? configured
      : configured && typeof configured === 'object' && typeof (configured as { kind?: unknown }).kind === 'string' ? (configured as { kind: string }).kind : null;
    const cursor = state?.cursorBlock ?? null;
    const head = state?.headBlock ?? null;
    return {
      workflow,
      paused: state?.paused ?? false,
      trigger: state?.trigger ?? configuredTrigger,
      last_run_at: toIso(stats?.lastRunAt),
      last_success_at: toIso(stats?.lastSuccessAt),
      last_failure_at: toIso(stats?.lastFailureAt),
      success_count: stats?.successCount ?? 0,
      failure_count: stats?.failureCount ?? 0,
      runs_waiting: runsWaiting,
      median_duration_ms: stats?.durations.quantile(0.5) ?? null,
      p95_duration_ms: stats?.durations.quantile(0.95) ?? null,
      tx_count: stats?.txCount ?? 0,
      recent_error_kind: stats?.recentErrorKind ?? null,
      cursor_block: cursor,
      head_block: head,
      lag_blocks: lagBlocks(cursor, head),
    };
  }
}
