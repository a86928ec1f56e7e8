/**
 * Sends and the spend ledger under a reorg (CONTRACT 8.6) on fakes, as the log poller runs it: a settled send whose
 * receipt's block the reorg removed goes back to awaiting its transaction (journaled once, also with two engine
 * processes and after a crash), the send watch has it again, its ledger entry counts no more, and the transaction
 * landing again writes a new entry.
 */
import { PollEventLogs } from '../../src/application/engine/poll-event-logs.use-case';
import { ReopenReorgedSends } from '../../src/application/sends/reopen-reorged-sends.use-case';
import type { WatchedSend } from '../../src/application/ports/send-watch';
import { WorkflowCatalog } from '../../src/application/workflow-catalog';
import type { JournalEvent, SendSubmitted } from '../../src/domain/journal/journal-event';
import { sendInStream } from '../../src/domain/sends/send-state';
import { landedSend } from '../contract/spend.contract';
import { CountingEngineMetrics } from '../fakes/counting-engine-metrics';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryChainLogs } from '../fakes/in-memory-chain-logs';
import { InMemoryEngineStore } from '../fakes/in-memory-engine-store';
import { InMemoryEventCursors } from '../fakes/in-memory-event-cursors';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { InMemorySendStore } from '../fakes/in-memory-send-store';
import { InMemorySpendLedger } from '../fakes/in-memory-spend';
import { RecordingLogger } from '../fakes/recording-logger';
import { aDevnet, anEventConfig, TOKEN, transfer, TRANSFER } from '../mothers/events';
import { aTxHash, iso, T0 } from '../mothers/journal-events';
import { aDelay, aWorkflow } from '../mothers/workflows';

const DEVNET = { network: 'devnet', chainId: 31337, rpc: ['http://fake/'] };

class Harness {
  readonly clock = new FixedClock(T0);
  readonly chain = new InMemoryChainLogs();
  readonly engine = new InMemoryEngineStore();
  readonly ledger = new InMemorySpendLedger();
  readonly journal = new InMemoryJournal({ schedule: this.engine, spend: this.ledger });
  readonly cursors = new InMemoryEventCursors(this.engine, this.journal);
  readonly watch = new InMemorySendStore();
  readonly logger = new RecordingLogger();
  readonly metrics = new CountingEngineMetrics();
  /** An event workflow polls the network: its kept block hashes are what a reorg is checked against. */
  private readonly config = anEventConfig(aDevnet(), aWorkflow({
    name: 'on_deposit', steps: [aDelay('note', 1000)],
    trigger: { kind: 'event', network: 'devnet', addresses: [TOKEN], event: TRANSFER, confirmations: 1, fromBlock: 1 },
  }));
  readonly poller = this.newPoller();

  /** Another engine process's poller on the same storage and chain. */
  newPoller(): PollEventLogs {
    const reopen = new ReopenReorgedSends(this.cursors, this.journal, this.watch, this.clock, this.logger);
    const catalog = new WorkflowCatalog(this.config);
    return new PollEventLogs(this.config, catalog, this.chain, this.cursors, this.journal, this.journal, this.clock, this.logger, undefined, this.metrics, undefined, reopen);
  }

  async poll(poller = this.poller): Promise<void> {
    this.clock.advance(60_000);
    await poller.execute();
  }

  async hashOf(block: number): Promise<string> {
    return (await this.chain.headerByNumber(DEVNET, BigInt(block)))!.hash;
  }

  /** A send of run `runId` settled with a receipt in `block` of the chain as it is now. */
  async landIn(runId: string, block: number, gasUsed = '21000'): Promise<void> {
    const receipt = { gasUsed, effectiveGasPrice: '1000000000', status: 1, blockNumber: String(block), blockHash: await this.hashOf(block) };
    await this.journal.append(landedSend({ runId, at: this.clock.now(), network: 'devnet', valueWei: '500', receipt }));
  }

  async reopenings(runId: string): Promise<SendSubmitted[]> {
    return (await this.journal.stream(runId)).filter((e): e is SendSubmitted => e.type === 'send.submitted' && e.reorged !== undefined);
  }

  async due(): Promise<WatchedSend[]> {
    return this.watch.claimDue('watcher', this.clock.now(), this.clock.now() + 60_000, 10);
  }
}

describe('sends and the ledger under a reorg', () => {
  it('sends a settled send whose receipt block was removed back to awaiting, once, and takes its entry out of every sum', async () => {
    const h = new Harness();
    h.chain.emit(TOKEN, TRANSFER, transfer(1));
    h.chain.mine(2); // blocks 2 and 3: the head, kept
    await h.poll();
    await h.landIn('kept', 2);
    await h.landIn('gone', 3);
    const removed = await h.hashOf(3);
    expect(await h.ledger.totals({})).toEqual([expect.objectContaining({ txCount: 2 })]);

    h.chain.reorg(1, 1); // block 3 replaced, and block 4 on top
    await h.poll();
    await h.poll(h.newPoller());

    expect(await h.reopenings('gone')).toEqual([
      { type: 'send.submitted', at: iso(T0 + 120_000), send_id: 'gone.send', tx_hash: aTxHash('gone'), reorged: { block: 3, removed_block_hash: removed } },
    ]);
    expect(await h.reopenings('kept')).toEqual([]);
    // Awaited again: no outcome, listed `submitted`, the watch has it, and its run's journal says it is not settled.
    expect(h.journal.sendState('gone.send')).toMatchObject({ status: 'submitted', outcome: null, txHash: aTxHash('gone'), receipt: null });
    expect(sendInStream(await h.journal.stream('gone'), 'gone.send')).toMatchObject({ settled: null });
    expect(await h.due()).toEqual([{ sendId: 'gone.send', runId: 'gone' }]);
    expect(h.ledger.all().map((e) => [e.stepRunId, e.reorged === true])).toEqual([['kept.pay', false], ['gone.pay', true]]);
    expect(await h.ledger.totals({})).toEqual([expect.objectContaining({ txCount: 1, valueWei: 500n })]);
    expect(h.logger.named('send back to awaiting its transaction: a reorg removed the block of its receipt')).toEqual([
      expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ send_id: 'gone.send', block: 3, removed_block_hash: removed }) }),
    ]);

    // It lands again in the new chain: the watch's settle writes a new entry beside the reorged one.
    const settle: JournalEvent = {
      type: 'send.settled', at: iso(h.clock.now()), send_id: 'gone.send', outcome: 'confirmed', tx_hash: aTxHash('gone'),
      receipt: { gasUsed: '30000', effectiveGasPrice: '1000000000', status: 1, blockNumber: '4', blockHash: await h.hashOf(4) },
    };
    await h.journal.append([settle]);
    expect(h.ledger.all().map((e) => [e.stepRunId, e.blockNumber, e.reorged === true])).toEqual([['kept.pay', 2n, false], ['gone.pay', 3n, true], ['gone.pay', 4n, false]]);
    expect(await h.ledger.totals({})).toEqual([expect.objectContaining({ txCount: 2, gasSpendWei: 51_000n * 1_000_000_000n, valueWei: 1000n })]);
    await h.poll();
    expect(await h.reopenings('gone')).toHaveLength(1);
  });

  it('judges blocks no poll saw by the new chain up to the head: a send in a removed one is reopened, one in the new chain is not', async () => {
    const h = new Harness();
    h.chain.emit(TOKEN, TRANSFER, transfer(1));
    h.chain.mine(); // block 2, the head of the poll
    await h.poll();
    h.chain.mine(); // block 3, which no poll sees
    await h.landIn('unseen', 3);
    h.chain.reorg(2, 2); // blocks 2 and 3 replaced; blocks 4 and 5 on top
    await h.landIn('fresh', 4); // settled from the new chain before the next poll
    await h.poll();
    expect((await h.reopenings('unseen')).map((e) => e.reorged)).toEqual([{ block: 3, removed_block_hash: expect.any(String) }]);
    expect(await h.reopenings('fresh')).toEqual([]);
    expect(h.ledger.all().map((e) => [e.stepRunId, e.reorged === true])).toEqual([['unseen.pay', true], ['fresh.pay', false]]);
  });

  it('journals a reopening again after a crash before the send was watched, and keeps one', async () => {
    const h = new Harness();
    h.chain.emit(TOKEN, TRANSFER, transfer(1)); // block 1 (kept: a log's block)
    h.chain.mine(); // block 2, the head
    await h.poll();
    await h.landIn('gone', 2);
    h.chain.reorg(1);
    const watch = h.watch.watch.bind(h.watch);
    let fail = true;
    h.watch.watch = async (send, dueAt) => {
      if (fail) {
        fail = false;
        throw new Error('database unreachable');
      }
      return watch(send, dueAt);
    };
    await h.poll();
    expect(h.logger.named('reorged sends not reopened; tried again at the next poll')).toHaveLength(1);
    expect(await h.due()).toEqual([]);
    await h.poll();
    expect(await h.reopenings('gone')).toHaveLength(1);
    expect(await h.due()).toEqual([{ sendId: 'gone.send', runId: 'gone' }]);
    expect(await h.ledger.totals({})).toEqual([]);
  });
});
