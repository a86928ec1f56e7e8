import { inject, injectable } from 'inversify';
import { pinDefinition } from '../../domain/engine/pinned-definition';
import { newRunId } from '../../domain/engine/run-id';
import { InvalidInputError, NotFoundError } from '../../domain/errors';
import type { JournalEvent, SessionStarted } from '../../domain/journal/journal-event';
import { toIso } from '../../domain/time';
import { ChainflowConfig } from '../config';
import type { ChainTarget } from '../ports/chain';
import { ChainLogs } from '../ports/chain-logs';
import { Clock } from '../ports/clock';
import { EngineStore } from '../ports/engine-store';
import { EventCursors } from '../ports/event-cursors';
import { JournalWriter } from '../ports/journal-writer';
import { Logger } from '../ports/logger';
import { WorkflowCatalog } from '../workflow-catalog';
import { LogRanges } from './log-ranges';
import { eventNameOf, headersOf, logRunStarted } from './log-runs';

/**
 * The widest range one replay reads (blocks). Wider ones are refused with a 400 before anything is read: a replay
 * is a look at a stretch of history, and its runs are all recorded by the request that asks for them.
 */
export const MAX_REPLAY_BLOCKS = 100_000n;
/** The most logs one replay runs: more are refused (nothing is recorded); replay narrower ranges instead. */
export const MAX_REPLAY_LOGS = 10_000;

export interface ReplayRequest {
  readonly workflow: string;
  /** Block numbers: non-negative integers, or their decimal text (checked here, named as the API's fields). */
  readonly fromBlock: unknown;
  readonly toBlock: unknown;
}

/**
 * Starts a replay session of an event workflow (CONTRACT 8.6): the workflow's matching logs of blocks [from, to] are
 * read with the log poller's range splitting, and each starts one run of the session, in chain order (its run ids
 * and creation times sort as the logs do), with `replay_of` the live run its log started where there is one. The
 * runs go through the engine like any other (leases, crash recovery); the steps know the session (simulated sends,
 * reads at the log's block: StepRunners, SendStep, ReadStep). Nothing of the live trigger moves: no cursor, no
 * kept block, no log-run key. The session ends when its last run ends (FinishSessions).
 */
@injectable()
export class ReplayEvents {
  private readonly ranges: LogRanges;

  constructor(
    @inject(ChainflowConfig) private readonly config: ChainflowConfig,
    @inject(WorkflowCatalog) private readonly catalog: WorkflowCatalog,
    @inject(ChainLogs) private readonly chain: ChainLogs,
    @inject(EventCursors) private readonly cursors: EventCursors,
    @inject(EngineStore) private readonly store: EngineStore,
    @inject(JournalWriter) private readonly journal: JournalWriter,
    @inject(Clock) private readonly clock: Clock,
    @inject(Logger) logger: Logger,
  ) {
    this.ranges = new LogRanges(chain, logger);
  }

  async execute(req: ReplayRequest): Promise<{ session_id: string; run_count: number }> {
    const definition = this.catalog.get(req.workflow);
    if (!definition) throw new NotFoundError(`workflow ${req.workflow}`);
    const { trigger } = definition;
    if (trigger.kind !== 'event') throw new InvalidInputError('workflow', `${req.workflow} is started by a ${trigger.kind} trigger; only event workflows can be replayed`);
    const network = this.config.networks.get(trigger.network);
    if (!network) throw new InvalidInputError('workflow', `${req.workflow}: network ${trigger.network} is not configured`);
    const from = blockOf(req.fromBlock, 'from_block');
    const to = blockOf(req.toBlock, 'to_block');
    if (to < from) throw new InvalidInputError('to_block', `must be at least from_block (${from})`);
    if (to - from + 1n > MAX_REPLAY_BLOCKS) throw new InvalidInputError('to_block', `a replay reads at most ${MAX_REPLAY_BLOCKS} blocks; ${from}..${to} is ${to - from + 1n}`);
    const target: ChainTarget = { network: network.name, chainId: network.chainId, rpc: network.rpc };
    const head = await this.chain.headerByNumber(target, 'latest');
    if (!head) throw new Error(`${network.name}: the provider knows no latest block`);
    if (to > head.number) throw new InvalidInputError('to_block', `is above the chain's head (block ${head.number})`);

    const logs = [];
    for (let cursor = from; cursor <= to;) {
      const range = await this.ranges.next(network, cursor, to, trigger.addresses, trigger.event);
      logs.push(...range.logs);
      if (logs.length > MAX_REPLAY_LOGS) {
        throw new InvalidInputError('to_block', `blocks ${from}..${to} hold more than ${MAX_REPLAY_LOGS} matching logs; replay a narrower range`);
      }
      cursor = range.to + 1n;
    }
    const headers = await headersOf(this.chain, target, logs);
    const live = new Map<string, string>();
    for (const r of await this.cursors.logRunsFrom(network.name, from)) {
      if (r.workflow === req.workflow && r.blockNumber <= to) live.set(logKey(r.blockHash, r.logIndex), r.runId);
    }

    const now = this.clock.now();
    const at = toIso(now);
    const sessionId = `replay-${newRunId(now)}`;
    const session: SessionStarted = {
      type: 'session.started', at, session_id: sessionId, kind: 'replay', workflow: req.workflow, from_block: Number(from), to_block: Number(to),
    };
    // One creation time for the whole session and a counter in the ids: the runs sort (by time, then id) in chain order.
    const tag = newRunId(now).slice(-4);
    const eventName = eventNameOf(trigger.event);
    const pinned = pinDefinition(definition);
    const runs = logs.map((log, i) => {
      const runId = newRunId(now, () => `${tag}${i.toString(16).padStart(6, '0')}`);
      const replayOf = live.get(logKey(log.blockHash, log.logIndex));
      const started = logRunStarted(runId, at, req.workflow, network.name, eventName, log, headers.get(log.blockHash)!, {
        session: 'replay', sessionId, ...(replayOf !== undefined ? { replayOf } : {}),
      });
      return { runId, started };
    });
    // Journaled first, all at once: the session holds every run before any can end (so none ends it early). The
    // schedule then gets each run (its start again, as every enqueue keeps one: a repeat of it is skipped).
    const events: JournalEvent[] = [session, ...runs.map((r) => r.started)];
    if (runs.length === 0) events.push({ type: 'session.finished', at, session_id: sessionId });
    await this.journal.append(events);
    for (const { runId, started } of runs) {
      await this.store.enqueue({ runId, workflow: req.workflow, start: [session, started], at: now, definition: pinned }, '', 0);
    }
    return { session_id: sessionId, run_count: runs.length };
  }
}

function logKey(blockHash: string, logIndex: number): string {
  return `${blockHash.toLowerCase()}:${logIndex}`;
}

/** A block number from JSON or a flag: a non-negative integer, or its decimal text; else a 400 naming the field. */
function blockOf(value: unknown, field: string): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string' && /^\d{1,30}$/.test(value.trim())) return BigInt(value.trim());
  if (value === undefined || value === null || value === '') throw new InvalidInputError(field, 'is required');
  throw new InvalidInputError(field, 'must be a block number (a non-negative integer)');
}
