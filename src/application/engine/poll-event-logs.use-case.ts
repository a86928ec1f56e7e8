import { inject, injectable, optional } from 'inversify';
import { pinDefinition, type PinnedDefinition } from '../../domain/engine/pinned-definition';
import { newRunId } from '../../domain/engine/run-id';
import type { EventTrigger, WorkflowDefinition } from '../../domain/engine/workflow';
import type { BlockHeader, ChainLog } from '../../domain/chain/chain-log';
import { LogRanges } from './log-ranges';
import type { JournalEvent } from '../../domain/journal/journal-event';
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

/** Block headers read at once for the logs of one range. */
const HEADER_READS = 16;
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
 * `workflow.state` journals the cursor and head when they moved, at most once per poll.
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
      const headers = await this.headersOf(target, logs);
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
    // Also those a crash left recorded and not journaled. A response that cannot be journaled now stays recorded and
    // is tried at the next poll; it does not hold back the logs of the new chain (the rollback is done).
    const steps: [string, (() => Promise<unknown>) | undefined][] = [
      ['reorg responses not journaled; tried again at the next poll', this.answers && (() => this.answers!.answer(target.network))],
      ['reorged sends not reopened; tried again at the next poll', this.reopen && (() => this.reopen!.execute(target.network))],
    ];
    for (const [warning, step] of steps) {
      try {
        await step?.();
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        this.logger.warn(warning, { network: target.network, err: this.redactor?.redactText(message) ?? message });
      }
    }
  }

  /**
   * The header of each block holding logs, by hash (the log's own block, even if the chain moved meanwhile), read
   * HEADER_READS at a time: a backfill's thousands of blocks would otherwise wait on one round trip each.
   */
  private async headersOf(target: ChainTarget, logs: readonly ChainLog[]): Promise<Map<string, BlockHeader>> {
    const hashes = [...new Set(logs.map((l) => l.blockHash))];
    const headers = new Map<string, BlockHeader>();
    for (let i = 0; i < hashes.length; i += HEADER_READS) {
      await Promise.all(hashes.slice(i, i + HEADER_READS).map(async (hash) => {
        const header = await this.chain.headerByHash(target, hash);
        // Gone already: a reorg removed it between the two reads. The range is read again at the next poll.
        if (!header) throw new Error(`${target.network}: block ${hash} of a log is no longer known (reorg?)`);
        headers.set(hash, header);
      }));
    }
    return headers;
  }

  private runsOf(w: EventWorkflow, logs: readonly ChainLog[], headers: ReadonlyMap<string, BlockHeader>): LogRunToEnqueue[] {
    const now = this.clock.now();
    const at = toIso(now);
    const workflow = w.definition.name;
    const eventName = w.trigger.event.replace(/^\s*event\s+/, '').split('(')[0]!.trim();
    const definition = this.pin(w.definition);
    return logs.map((log) => {
      const runId = newRunId(now);
      const number = Number(log.blockNumber);
      const header = headers.get(log.blockHash)!;
      const start: JournalEvent[] = [{
        type: 'run.started', at, run_id: runId, workflow, session: 'live',
        trigger: {
          kind: 'event', summary: `${eventName} at block ${number}`, payload: { ...log.args },
          block: { number, hash: log.blockHash, timestamp: header.timestamp }, tx_hash: log.txHash, log: { address: log.address, log_index: log.logIndex },
        },
        network: w.network.name, contract: log.address, block: number,
      }];
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
