import { inject, injectable } from 'inversify';
import type { WaitEventStep } from '../../domain/engine/workflow';
import type { Json } from '../../domain/journal/journal-event';
import { toIso } from '../../domain/time';
import { ChainflowConfig } from '../config';
import { ChainUnavailableError } from '../ports/chain';
import { ChainLogs } from '../ports/chain-logs';
import { Clock } from '../ports/clock';
import { EventWaits } from '../ports/event-waits';
import type { Attempted, AttemptContext, PreparedAttempt } from './attempt';

/**
 * The `wait_event` step (CONTRACT 8.6): its attempt reads the head and records a wait for a log in a later block
 * (EventWaits), then parks the run (`event`) until the wait's timeout; the event waits job (WatchEventWaits) wakes
 * it when a log matches. Claimed again, the step succeeds with the log, fails `event_timeout`, or waits on.
 */
@injectable()
export class WaitEventStepRunner {
  constructor(
    @inject(ChainflowConfig) private readonly config: ChainflowConfig,
    @inject(ChainLogs) private readonly chain: ChainLogs,
    @inject(EventWaits) private readonly waits: EventWaits,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  prepare(step: WaitEventStep, ctx: AttemptContext): PreparedAttempt {
    const expiresAt = this.clock.now() + step.timeoutMs;
    return {
      input: {
        network: step.network, address: [...step.addresses], event: step.event, ...(step.where !== undefined ? { where: step.where } : {}),
        confirmations: step.confirmations, expires_at: toIso(expiresAt),
      },
      sideEffects: false,
      run: () => this.open(step, ctx, expiresAt),
    };
  }

  async resume(step: WaitEventStep, ctx: AttemptContext): Promise<Attempted | undefined> {
    const wait = await this.waits.get(ctx.stepRunId);
    if (!wait) return undefined;
    if (wait.match !== null) {
      await this.waits.close(ctx.stepRunId);
      return { kind: 'succeeded', output: wait.match };
    }
    if (this.clock.now() >= wait.expiresAt) {
      await this.waits.close(ctx.stepRunId);
      return {
        kind: 'failed', retryable: false,
        error: { kind: 'event_timeout', message: `no ${step.event.split('(')[0]} log matched by ${toIso(wait.expiresAt)}` },
      };
    }
    return { kind: 'parked', events: [], wait: { kind: 'event', dueAt: wait.expiresAt, expiresAt: wait.expiresAt } };
  }

  private async open(step: WaitEventStep, ctx: AttemptContext, expiresAt: number): Promise<Attempted> {
    const network = this.config.networks.get(step.network);
    if (!network) return { kind: 'failed', retryable: false, error: { kind: 'read_failed', message: `network ${step.network} is not configured` } };
    let head: bigint;
    try {
      const top = await this.chain.headerByNumber({ network: network.name, chainId: network.chainId, rpc: network.rpc }, 'latest');
      if (!top) throw new ChainUnavailableError(network.name, 'the provider knows no latest block');
      head = top.number;
    } catch (err) {
      if (!(err instanceof ChainUnavailableError)) throw err;
      return { kind: 'failed', error: { kind: 'read_failed', message: err.message } };
    }
    // Only logs of later blocks match (CONTRACT 8.6): earlier ones happened before the step asked.
    const { trigger, steps, run } = ctx.scope as Record<string, Json>;
    const wait = await this.waits.open({
      stepRunId: ctx.stepRunId, runId: ctx.runId, workflow: String((run as { workflow?: unknown } | undefined)?.workflow ?? ''), network: step.network,
      addresses: step.addresses, event: step.event, ...(step.where !== undefined ? { where: step.where } : {}), confirmations: step.confirmations,
      context: { trigger: trigger ?? null, steps: steps ?? {}, run: run ?? null }, nextBlock: head + 1n, expiresAt,
    });
    return { kind: 'parked', events: [], wait: { kind: 'event', dueAt: wait.expiresAt, expiresAt: wait.expiresAt } };
  }
}
