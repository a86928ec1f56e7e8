/**
 * The event trigger's log poller (CONTRACT 8.6) on fakes: one run per log, in ranges from a stored cursor,
 * confirmations, ranges halved when a provider refuses them, reads that fail leave the cursor, paused workflows,
 * and `workflow.state` with the cursor and head.
 */
import type { NetworkConfig } from '../../src/application/config';
import { PollEventLogs } from '../../src/application/engine/poll-event-logs.use-case';
import { WorkflowCatalog } from '../../src/application/workflow-catalog';
import type { ClaimedRun } from '../../src/application/ports/engine-store';
import type { EventTrigger, WorkflowDefinition } from '../../src/domain/engine/workflow';
import type { JournalEvent, RunStarted } from '../../src/domain/journal/journal-event';
import { EventFakes } from '../fakes/event-fakes';
import { T0 } from '../mothers/journal-events';
import { aDevnet, anEventConfig, OTHER, TOKEN, transfer, TRANSFER } from '../mothers/events';
import { aDelay, aWorkflow } from '../mothers/workflows';

class Harness extends EventFakes {
  readonly network: NetworkConfig;
  readonly workflow: WorkflowDefinition;
  readonly poller: PollEventLogs;

  constructor(trigger: Partial<EventTrigger> = {}, network: Partial<NetworkConfig> = {}) {
    super();
    this.network = aDevnet(network);
    this.workflow = aWorkflow({
      name: 'on_deposit', steps: [aDelay('note', 1000)],
      trigger: { kind: 'event', network: 'devnet', addresses: [TOKEN], event: TRANSFER, confirmations: 1, fromBlock: 'latest', ...trigger },
    });
    this.poller = this.newPoller();
  }

  /** Another engine process's poller on the same storage and chain. */
  newPoller(): PollEventLogs {
    const config = anEventConfig(this.network, this.workflow);
    return new PollEventLogs(config, new WorkflowCatalog(config), this.chain, this.cursors, this.journal, this.journal, this.clock, this.logger);
  }

  /** One poll, after the poll interval (and any backoff) has passed. */
  async poll(poller = this.poller): Promise<void> {
    this.clock.advance(60_000);
    await poller.execute();
  }

  /** The runs the engine would drive now, their starts in claim order. */
  async claimed(): Promise<RunStarted[]> {
    // Leases that outlast every test: a run claimed once is never claimed again here.
    const claims: ClaimedRun[] = await this.engine.claimDue('engine', this.clock.now() + 1, this.clock.now() + 10 ** 12, 10_000);
    return claims.map((c) => c.start.find((e): e is RunStarted => e.type === 'run.started')!);
  }

  async states(): Promise<JournalEvent[]> {
    const overview = await this.journal.listWorkflows(['on_deposit'], 10);
    return overview.flatMap((w) => (w.state ? [{ type: 'workflow.state', at: '', workflow: w.workflow, cursor_block: w.state.cursorBlock, head_block: w.state.headBlock } as unknown as JournalEvent] : []));
  }
}

describe('the log poller', () => {
  it('starts one run per log from the head it first sees, with the log beside the decoded payload', async () => {
    const h = new Harness();
    h.chain.mine(4);
    await h.poll();
    expect(await h.cursors.cursor('on_deposit')).toBe(5n);
    const [first, second] = h.chain.emit(TOKEN, TRANSFER, transfer(1), transfer(2));
    h.chain.emit(OTHER, TRANSFER, transfer(3));
    const [third] = h.chain.emit(TOKEN, TRANSFER, transfer(4));
    await h.poll();
    const started = await h.claimed();
    expect(started.map((s) => s.trigger.payload)).toEqual([transfer(1), transfer(2), transfer(4)]);
    expect(started[1]).toMatchObject({
      workflow: 'on_deposit', session: 'live', network: 'devnet', contract: TOKEN, block: 5,
      trigger: {
        kind: 'event', summary: 'Transfer at block 5',
        block: { number: 5, hash: second!.blockHash, timestamp: expect.any(Number) }, tx_hash: second!.txHash, log: { address: TOKEN, log_index: 1 },
      },
    });
    expect(first!.blockNumber).toBe(5n);
    expect(third!.blockNumber).toBe(7n);
    await h.poll();
    expect(await h.claimed()).toEqual([]);
    expect(await h.states()).toEqual([expect.objectContaining({ cursor_block: 7, head_block: 7 })]);
  });

  it('holds a log back until its block has the confirmations (its own included), and starts it once it has', async () => {
    const h = new Harness({ confirmations: 3 });
    await h.poll();
    h.chain.emit(TOKEN, TRANSFER, transfer(7));
    await h.poll();
    h.chain.mine(1);
    await h.poll();
    expect(await h.claimed()).toEqual([]);
    expect(await h.states()).toEqual([expect.objectContaining({ cursor_block: 0, head_block: 2 })]);
    h.chain.mine(1);
    await h.poll();
    expect((await h.claimed()).map((s) => s.trigger.payload)).toEqual([transfer(7)]);
  });

  it('reads a backfill from from_block in ranges of max_block_range, halving while the provider refuses, one run per log', async () => {
    const h = new Harness({ fromBlock: 1 }, { maxBlockRange: 10 });
    for (let i = 1; i <= 30; i++) h.chain.emit(TOKEN, TRANSFER, transfer(i));
    h.chain.refuseRangesOver(4);
    await h.poll();
    expect((await h.claimed()).map((s) => s.trigger.payload)).toEqual(Array.from({ length: 30 }, (_, i) => transfer(i + 1)));
    const widths = h.chain.queries.map((q) => Number(q.toBlock - q.fromBlock + 1n));
    expect(widths.slice(0, 3)).toEqual([10, 5, 2]);
    expect(Math.max(...widths.slice(2))).toBe(2);
    expect(h.logger.named('provider refused a block range as too wide; halved').map((l) => l.fields.max_block_range)).toEqual([5, 2]);
    expect(await h.cursors.cursor('on_deposit')).toBe(31n);
  });

  it('leaves the cursor where it is when a read fails, and reads the same range again after a backoff', async () => {
    const h = new Harness({ fromBlock: 1 });
    h.chain.emit(TOKEN, TRANSFER, transfer(1));
    h.chain.failNext(1);
    await h.poll();
    expect(await h.cursors.cursor('on_deposit')).toBeUndefined();
    expect(h.logger.named('event logs not read; the cursor stays, tried again after a backoff')).toHaveLength(1);
    await h.poll();
    h.chain.emit(TOKEN, TRANSFER, transfer(2));
    h.chain.failNext(2);
    await h.poll();
    expect(await h.cursors.cursor('on_deposit')).toBe(2n);
    await h.poll();
    expect(await h.cursors.cursor('on_deposit')).toBe(2n);
    await h.poll();
    expect(h.logger.named('event logs not read; the cursor stays, tried again after a backoff')).toHaveLength(3);
    expect((await h.claimed()).map((s) => s.trigger.payload)).toEqual([transfer(1), transfer(2)]);
  });

  it('is due again poll_interval after a poll started, however long the poll took, and after a backoff when it failed', async () => {
    const h = new Harness({}, { pollIntervalMs: 1000 });
    expect(h.poller.nextInMs()).toBe(0);
    // The logs read takes 300 ms of the interval.
    const logs = h.chain.logs.bind(h.chain);
    h.chain.logs = async (target, query) => {
      h.clock.advance(300);
      return logs(target, query);
    };
    await h.poll();
    h.chain.emit(TOKEN, TRANSFER, transfer(1));
    await h.poll();
    expect(h.poller.nextInMs()).toBe(700);
    h.clock.advance(700);
    expect(h.poller.nextInMs()).toBe(0);
    h.chain.failNext(1);
    await h.poller.execute();
    expect(h.poller.nextInMs()).toBe(1000);
  });

  it('starts no run while the workflow is paused: its cursor moves on past the logs of that time', async () => {
    const h = new Harness();
    await h.poll();
    await h.journal.append([{ type: 'workflow.state', at: new Date(T0).toISOString(), workflow: 'on_deposit', paused: true }]);
    h.chain.emit(TOKEN, TRANSFER, transfer(1));
    await h.poll();
    await h.journal.append([{ type: 'workflow.state', at: new Date(T0).toISOString(), workflow: 'on_deposit', paused: false }]);
    h.chain.emit(TOKEN, TRANSFER, transfer(2));
    await h.poll();
    expect((await h.claimed()).map((s) => s.trigger.payload)).toEqual([transfer(2)]);
  });

  it('starts each log\'s run once when two engine processes poll the same workflow', async () => {
    const h = new Harness({ fromBlock: 1 }, { maxBlockRange: 3 });
    const other = h.newPoller();
    for (let i = 1; i <= 12; i++) h.chain.emit(TOKEN, TRANSFER, transfer(i));
    await Promise.all([h.poll(), other.execute(), h.poll(other)]);
    expect((await h.claimed()).map((s) => s.trigger.payload)).toEqual(Array.from({ length: 12 }, (_, i) => transfer(i + 1)));
  });
});
