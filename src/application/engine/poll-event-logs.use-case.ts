import { inject, injectable, optional } from 'inversify';
import { pinDefinition, type PinnedDefinition } from '../../domain/engine/pinned-definition';
import { newRunId } from '../../domain/engine/run-id';
import type { EventTrigger, WorkflowDefinition } from '../../domain/engine/workflow';
import type { BlockHeader, ChainLog } from '../../domain/chain/chain-log';
import { LogRanges } from './log-ranges';
import { eventNameOf, headersOf, logRunStarted } from './log-runs';
import { Redactor } from '../../domain/redactor';
import { toIso } from '../../domain/time';
import { ChainflowConfig, DEFAULT_EVENT_POLL_MS, DEFAULT_FINALITY_DEPTH, type NetworkConfig } from '../config';
import type { ChainTarget } from '../ports/chain';
import { ChainLogs } from '../ports/chain-logs';
import { Clock } from '../ports/clock';
import { EventCursors, type LogRunToEnqueue } from '../ports/event-cursors';
import { JournalWriter } from '../ports/journal-writer';
import { Logger } from '../ports/logger';
import { WorkflowStates } from '../ports/workflow-states';
import { WorkflowCatalog } from '../workflow-catalog';
import { EngineMetrics, NO_ENGINE_METRICS } from '../ports/engine-metrics';
import { ReopenReorgedSends } from '../sends/reopen-reorged-sends.use-case';
import { AnswerReorgs } from './answer-reorgs';
import { CheckReorgs } from './check-reorgs';

/** The longest wait before a workflow whose reads keep failing is tried again. */
const MAX_BACKOFF_MS = 60_000;

interface EventWorkflow {
  readonly definition: WorkflowDefinition;
  readonly trigger: EventTrigger;
  readonly network: NetworkConfig;
}

/**
 * The event trigger's log poller (CONTRACT 8.6), a job of the engine's loop. For each event workflow whose
 * network's `poll_interval` has passed: reads the head, then the logs of [cursor, head - confirmations + 1] in ranges
 * of at most `max_block_range` blocks (halved while a provider refuses them: LogRanges), and moves the cursor past
 * each range together with the runs its logs start (EventCursors.advance: one transaction). Any other failure leaves the cursor where it is, and the workflow is tried again after a backoff that doubles.
 * `workflow.state` journals the cursor and head when they moved, at most once per poll. The reorg check runs in the
 * poll; the responses it records are answered beside the polls (see `answerInBackground`).
 */
@injectable()
export class PollEventLogs {
  private readonly ranges: LogRanges;
  /** When each workflow is polled next (epoch ms), and the backoff of one whose reads failed. */
  private readonly due = new Map<string, { at: number; backoffMs: number }>();
  /** The cursor and head last journaled per workflow: unchanged, nothing is journaled. */
  private readonly journaled = new Map<string, string>();
  private readonly pinned = new WeakMap<WorkflowDefinition, PinnedDefinition>();
  private readonly workflows: readonly EventWorkflow[];
  private readonly reorgs: CheckReorgs;
  /** Per network, the reorg responses being answered in the background, and whether a poll asked for another pass. */
  private readonly answering = new Map<string, Promise<void>>();
  private readonly answerAgain = new Set<string>();

  constructor(
    @inject(ChainflowConfig) config: ChainflowConfig,
    @inject(WorkflowCatalog) catalog: WorkflowCatalog,
    @inject(ChainLogs) private readonly chain: ChainLogs,
    @inject(EventCursors) private readonly cursors: EventCursors,
    @inject(WorkflowStates) private readonly states: WorkflowStates,
    @inject(JournalWriter) private readonly journal: JournalWriter,
    @inject(Clock) private readonly clock: Clock,
    @inject(Logger) private readonly logger: Logger,
    @inject(Redactor) @optional() private readonly redactor?: Redactor,
    @inject(EngineMetrics) @optional() metrics: EngineMetrics = NO_ENGINE_METRICS,
    /** Journals the responses a roll back recorded; without it (a tool that only reads logs) they stay recorded. */
    @inject(AnswerReorgs) @optional() private readonly answers?: AnswerReorgs,
    /** Journals the sends a roll back reopened (their receipts' blocks removed); without it they stay recorded. */
    @inject(ReopenReorgedSends) @optional() private readonly reopen?: ReopenReorgedSends,
  ) {
    this.ranges = new LogRanges(chain, logger);
    this.reorgs = new CheckReorgs(chain, cursors, metrics, logger, () => clock.now());

    this.workflows = catalog.all().flatMap((definition) => {
      const { trigger } = definition;
      const network = trigger.kind === 'event' ? config.networks.get(trigger.network) : undefined;
      return trigger.kind === 'event' && network ? [{ definition, trigger, network }] : [];
    });
  }

  /** Whether any workflow is started by logs (else the engine need not run this job). */
  watching(): boolean {
    return this.workflows.length > 0;
  }

  /** How often the job should run: the shortest `poll_interval` of the watched networks. */
  everyMs(): number {
    return Math.min(...this.workflows.map((w) => pollMs(w.network)));
  }

  /**
   * Until the next workflow is due, in ms (0: one is due now). A workflow is due `poll_interval` after its last poll
   * started, not after it ended: a poll's own work (tens of ms, more on a loaded host) does not stretch the interval
   * the operator configured, which bounds how long a log waits for the poll that sees it.
   */
  nextInMs(): number {
    const now = this.clock.now();
    return Math.max(0, Math.min(...this.workflows.map((w) => (this.due.get(w.definition.name)?.at ?? now) - now)));
  }

  /** Resolves once the reorg responses being answered in the background (see `answerInBackground`) are. */
  async answered(): Promise<void> {
    while (this.answering.size > 0) await Promise.all(this.answering.values());
  }

  /**
   * Polls every event workflow that is due. `started` is told each time runs were enqueued (the engine looks for
   * due runs at once). Never throws for a chain's or a store's trouble: it is logged, and retried with backoff.
   */
  async execute(started?: () => void): Promise<void> {
    const heads = new Map<string, Promise<BlockHeader | null>>();
    const checks = new Map<string, Promise<void>>();
    for (const w of this.workflows) {
      const now = this.clock.now();
      const due = this.due.get(w.definition.name);
      if (due && due.at > now) continue;
      try {
        await this.poll(w, heads, checks, started);
        this.due.set(w.definition.name, { at: now + pollMs(w.network), backoffMs: 0 });
      } catch (err) {
        const backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(pollMs(w.network), (due?.backoffMs ?? 0) * 2));
        this.due.set(w.definition.name, { at: now + backoffMs, backoffMs });
        const message = err instanceof Error ? err.message : String(err);
        this.logger.warn('event logs not read; the cursor stays, tried again after a backoff', {
          workflow: w.definition.name, network: w.network.name, retry_in_ms: backoffMs, err: this.redactor?.redactText(message) ?? message,
        });
      }
    }
  }

  private async poll(
    w: EventWorkflow, heads: Map<string, Promise<BlockHeader | null>>, checks: Map<string, Promise<void>>, started?: () => void,
  ): Promise<void> {
    const target: ChainTarget = { network: w.network.name, chainId: w.network.chainId, rpc: w.network.rpc };
    // One head read per network and poll, whatever number of workflows watch it.
    let head = heads.get(target.network);
    if (!head) heads.set(target.network, (head = this.chain.headerByNumber(target, 'latest')));
    const top = await head.catch((err: unknown) => {
      heads.delete(target.network);
      throw err;
    });
    if (!top) throw new Error(`${target.network}: the provider knows no latest block`);
    // The reorg check, once per network and poll, before any cursor of the network moves (see CheckReorgs).
    let check = checks.get(target.network);
    if (!check) checks.set(target.network, (check = this.checkReorgs(target, w.network, top)));
    await check.catch((err: unknown) => {
      checks.delete(target.network);
      throw err;
    });
    const name = w.definition.name;
    let cursor = (await this.cursors.cursor(name))
      ?? (await this.cursors.startCursor(name, target.network, w.trigger.fromBlock === 'latest' ? top.number : BigInt(w.trigger.fromBlock)));
    const safe = top.number - BigInt(w.trigger.confirmations) + 1n;
    // A paused workflow starts no run (CONTRACT 8.4): its cursor still moves, as a paused cron workflow's ticks pass.
    const paused = (await this.states.paused(name)) ?? w.definition.paused;
    const kept: BlockHeader[] = [top];
    while (cursor <= safe) {
      const { logs, to } = await this.ranges.next(w.network, cursor, safe, w.trigger.addresses, w.trigger.event);
      const headers = await headersOf(this.chain, target, logs);
      kept.push(...headers.values());
      const runs = paused ? [] : this.runsOf(w, logs, headers);
      const moved = await this.cursors.advance(name, cursor, to + 1n, runs);
      if (!moved.advanced) {
        // Another engine process read this range first: go on from where it left the cursor.
        cursor = (await this.cursors.cursor(name)) ?? cursor;
        continue;
      }
      if (moved.started.length > 0) started?.();
      cursor = to + 1n;
    }
    const depth = BigInt(w.network.finalityDepth ?? DEFAULT_FINALITY_DEPTH);
    await this.cursors.keepBlocks(target.network, kept, top.number - depth + 1n);
    await this.noteState(w, cursor - 1n, top.number);
  }

  private async checkReorgs(target: ChainTarget, network: NetworkConfig, top: BlockHeader): Promise<void> {
    await this.reorgs.check(target, network.finalityDepth ?? DEFAULT_FINALITY_DEPTH, top);
    this.answerInBackground(target.network);
    // Sends whose receipts' blocks were removed (also those a crash left recorded and not journaled) go back to
    // awaiting their transactions: one journal write. Should it fail, they stay recorded and the next poll tries again.
    if (!this.reopen) return;
    try {
      await this.reopen.execute(target.network);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.logger.warn('reorged sends not reopened; tried again at the next poll', { network: target.network, err: this.redactor?.redactText(message) ?? message });
    }
  }

  /**
   * Journals the network's pending reorg responses (this poll's, and those a crash left recorded) and runs their
   * `on_reorg` steps, beside the polls rather than in them: the steps call the operator's services, with retries that
   * may last minutes, and the logs of the new chain are not held back for them (the rollback is done). One answering
   * per network at a time; a poll during it asks for another pass after it. A response that cannot be journaled
   * stays recorded and is tried at the next poll.
   */
  private answerInBackground(network: string): void {
    if (!this.answers) return;
    if (this.answering.has(network)) {
      this.answerAgain.add(network);
      return;
    }
    const answers = this.answers;
    const pass = async (): Promise<void> => {
      do {
        this.answerAgain.delete(network);
        await answers.answer(network);
      } while (this.answerAgain.has(network));
    };
    this.answering.set(network, pass().catch((err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      this.logger.warn('reorg responses not journaled; tried again at the next poll', {
        network, err: this.redactor?.redactText(message) ?? message,
      });
    }).finally(() => {
      this.answering.delete(network);
      this.answerAgain.delete(network);
    }));
  }

  private runsOf(w: EventWorkflow, logs: readonly ChainLog[], headers: ReadonlyMap<string, BlockHeader>): LogRunToEnqueue[] {
    const now = this.clock.now();
    const at = toIso(now);
    const workflow = w.definition.name;
    const eventName = eventNameOf(w.trigger.event);
    const definition = this.pin(w.definition);
    return logs.map((log) => {
      const runId = newRunId(now);
      const start = [logRunStarted(runId, at, workflow, w.network.name, eventName, log, headers.get(log.blockHash)!, { session: 'live' })];
      return {
        run: { runId, workflow, start, at: now, definition }, network: w.network.name, blockNumber: log.blockNumber, blockHash: log.blockHash,
        logIndex: log.logIndex, txHash: log.txHash,
      };
    });
  }

  /** `workflow.state` with the last block read and the head, when either moved since this process last said so. */
  private async noteState(w: EventWorkflow, read: bigint, head: bigint): Promise<void> {
    const key = `${read}:${head}`;
    if (this.journaled.get(w.definition.name) === key) return;
    await this.journal.append([{
      type: 'workflow.state', at: toIso(this.clock.now()), workflow: w.definition.name, trigger: 'event', network: w.network.name,
      ...(read >= 0n ? { cursor_block: Number(read) } : {}), head_block: Number(head),
    }]);
    this.journaled.set(w.definition.name, key);
  }

  private pin(definition: WorkflowDefinition): PinnedDefinition {
    let pinned = this.pinned.get(definition);
    if (!pinned) this.pinned.set(definition, (pinned = pinDefinition(definition)));
    return pinned;
  }
}

function pollMs(network: NetworkConfig): number {
  return network.pollIntervalMs ?? DEFAULT_EVENT_POLL_MS;
}
