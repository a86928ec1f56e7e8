import { inject, injectable } from 'inversify';
import type { WaitEventStep } from '../../domain/engine/workflow';
import type { ChainLog } from '../../domain/chain/chain-log';
import type { Json } from '../../domain/journal/journal-event';
import { ChainflowConfig, DEFAULT_EVENT_POLL_MS, type NetworkConfig } from '../config';
import { ChainLogs } from '../ports/chain-logs';
import { Clock } from '../ports/clock';
import { EngineStore } from '../ports/engine-store';
import { EventWaits, type EventWait } from '../ports/event-waits';
import { ExpressionError, Expressions } from '../ports/expressions';
import { Logger } from '../ports/logger';
import { WorkflowCatalog } from '../workflow-catalog';
import { LogRanges } from './log-ranges';

/**
 * The event waits job of the engine loop (CONTRACT 8.6): reads, for each open `wait_event` wait, the logs of the
 * blocks after its start that have its confirmations, in chain order, and the first whose `where` holds is its match:
 * kept with the wait (compare-and-set, so one process matches it) and the run woken to finish the step. A wait
 * moves past the blocks it read; a read that fails leaves it where it is (tried again at the next turn).
 */
@injectable()
export class WatchEventWaits {
  private readonly ranges: LogRanges;
  private readonly networks: readonly NetworkConfig[];

  constructor(
    @inject(ChainflowConfig) private readonly config: ChainflowConfig,
    @inject(WorkflowCatalog) catalog: WorkflowCatalog,
    @inject(ChainLogs) private readonly chain: ChainLogs,
    @inject(EventWaits) private readonly waits: EventWaits,
    @inject(EngineStore) private readonly store: EngineStore,
    @inject(Expressions) private readonly expressions: Expressions,
    @inject(Clock) private readonly clock: Clock,
    @inject(Logger) private readonly logger: Logger,
  ) {
    this.ranges = new LogRanges(chain, logger);
    const names = new Set(catalog.all().flatMap((w) => w.steps.filter((s): s is WaitEventStep => s.type === 'wait_event').map((s) => s.network)));
    this.networks = [...names].flatMap((name) => config.networks.get(name) ?? []);
  }

  /** Whether any workflow has a `wait_event` step (else the engine need not run this job). */
  watching(): boolean {
    return this.networks.length > 0;
  }

  /** How often the job should run: the shortest `poll_interval` of the networks waited on. */
  everyMs(): number {
    return Math.min(...this.networks.map((n) => n.pollIntervalMs ?? DEFAULT_EVENT_POLL_MS));
  }

  async execute(): Promise<void> {
    const heads = new Map<string, Promise<bigint>>();
    for (const wait of await this.waits.pending()) {
      const network = this.config.networks.get(wait.network);
      // Past its timeout the wait is the run's to close (it fails the step when claimed, due then): nothing to read.
      if (!network || this.clock.now() >= wait.expiresAt) continue;
      try {
        let head = heads.get(network.name);
        if (!head) heads.set(network.name, (head = this.head(network)));
        await this.watch(wait, network, await head);
      } catch (err) {
        heads.delete(network.name);
        this.logger.warn('event wait not read; tried again at the next turn', {
          run_id: wait.runId, step_run_id: wait.stepRunId, network: network.name, err: err instanceof Error ? err.message : String(err),
        });
      }
    }
  }

  private async head(network: NetworkConfig): Promise<bigint> {
    const top = await this.chain.headerByNumber({ network: network.name, chainId: network.chainId, rpc: network.rpc }, 'latest');
    if (!top) throw new Error(`${network.name}: the provider knows no latest block`);
    return top.number;
  }

  private async watch(wait: EventWait, network: NetworkConfig, head: bigint): Promise<void> {
    const safe = head - BigInt(wait.confirmations) + 1n;
    let next = wait.nextBlock;
    while (next <= safe) {
      const { logs, to } = await this.ranges.next(network, next, safe, wait.addresses, wait.event);
      const match = logs.find((log) => this.matches(wait, log));
      const moved = await this.waits.advance(wait.stepRunId, next, match ? match.blockNumber + 1n : to + 1n, match ? { ...match.args } : undefined);
      // Another process moved the wait first: it reads on from there.
      if (!moved) return;
      if (match) {
        await this.store.wake(wait.runId, this.clock.now());
        return;
      }
      next = to + 1n;
    }
  }

  /** `where` over the log and the run's context; an expression that fails does not match (logged once per log). */
  private matches(wait: EventWait, log: ChainLog): boolean {
    if (wait.where === undefined) return true;
    try {
      return this.expressions.evaluate(wait.where, { ...wait.context, log: log.args as Record<string, Json> }) === true;
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
      this.logger.warn('wait_event where failed on a log; not a match', { run_id: wait.runId, step_run_id: wait.stepRunId, err: err.message });
      return false;
    }
  }
}
