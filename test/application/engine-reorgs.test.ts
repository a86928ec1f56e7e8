/**
 * The reorg check (CONTRACT 8.6) on fakes, as the log poller runs it: the walk back to the common ancestor, the
 * cursor moved back so that the new canonical logs start new runs, one `reorg.response` per affected run (once, also
 * with two engine processes and after a crash), an affected run still going cancelled `reorged`, and a reorg deeper
 * than finality_depth logged and counted, not rolled back.
 */
import type { NetworkConfig } from '../../src/application/config';
import { AnswerReorgs } from '../../src/application/engine/answer-reorgs';
import { CancelRun } from '../../src/application/engine/cancel-run.use-case';
import { StepRunners } from '../../src/application/engine/step-runners';
import { PollEventLogs } from '../../src/application/engine/poll-event-logs.use-case';
import { WorkflowCatalog } from '../../src/application/workflow-catalog';
import type { StepDefinition, WorkflowDefinition } from '../../src/domain/engine/workflow';
import type { JournalEvent, RunStarted } from '../../src/domain/journal/journal-event';
import { CelExpressions } from '../../src/adapters/cel/cel-expressions';
import { ScriptedHttpClient, status } from '../fakes/scripted-http-client';
import { CountingEngineMetrics } from '../fakes/counting-engine-metrics';
import { EventFakes } from '../fakes/event-fakes';
import { aDevnet, anEventConfig, TOKEN, transfer, TRANSFER } from '../mothers/events';
import { aDelay, anHttpCall, aWorkflow } from '../mothers/workflows';

class Harness extends EventFakes {
  readonly metrics = new CountingEngineMetrics();
  readonly http = new ScriptedHttpClient();
  /** The waits between on_reorg step attempts (not waited here). */
  readonly waits: number[] = [];
  readonly workflow: WorkflowDefinition;
  readonly network: NetworkConfig;
  readonly poller: PollEventLogs;
  /** The runs started so far, in order. */
  readonly runIds: string[] = [];

  constructor(network: Partial<NetworkConfig> = {}, onReorg: readonly StepDefinition[] = [
    anHttpCall('undo', { method: 'POST', url: 'http://receiver.test/undo', body: { run: '${{ reorg.run_id }}', block: '${{ reorg.block }}', value: '${{ trigger.payload.value }}' } }),
    anHttpCall('only_deep', { if: 'reorg.depth > 5', url: 'http://receiver.test/deep' }),
  ]) {
    super();
    this.network = aDevnet(network);
    this.workflow = aWorkflow({
      name: 'on_deposit', steps: [aDelay('note', 1000)],
      onReorg,
      trigger: { kind: 'event', network: 'devnet', addresses: [TOKEN], event: TRANSFER, confirmations: 1, fromBlock: 1 },
    });
    this.poller = this.newPoller();
  }

  /** Two logs in blocks 1 and 2, their runs started, then block 2 replaced (and one block more). */
  static async reorgedAfterTwoRuns(): Promise<Harness> {
    const h = new Harness();
    h.chain.emit(TOKEN, TRANSFER, transfer(1));
    h.chain.emit(TOKEN, TRANSFER, transfer(2));
    await h.poll();
    await h.startRuns();
    h.chain.reorg(1, 1);
    return h;
  }

  /** Another engine process's poller on the same storage and chain. */
  newPoller(): PollEventLogs {
    const config = anEventConfig(this.network, this.workflow);
    const cancel = new CancelRun(this.journal, this.journal, this.journal, this.engine, this.clock, this.metrics);
    const catalog = new WorkflowCatalog(config);
    const expressions = new CelExpressions();
    const answers = new AnswerReorgs(
      this.cursors, this.journal, this.journal, cancel, catalog, new StepRunners(this.http, expressions, this.clock), expressions, this.clock, this.logger,
      async (ms) => {
        this.waits.push(ms);
      },
    );
    return new PollEventLogs(config, catalog, this.chain, this.cursors, this.journal, this.journal, this.clock, this.logger, undefined, this.metrics, answers);
  }

  /** One poll, and the answering of the responses it found (beside the poll), to its end. */
  async poll(poller = this.poller): Promise<void> {
    this.clock.advance(60_000);
    await poller.execute();
    await poller.answered();
  }

  /** Claims the runs due and journals their starts, as the engine does: the runs are `running`. */
  async startRuns(): Promise<RunStarted[]> {
    const claims = await this.engine.claimDue('engine', this.clock.now() + 1, this.clock.now() + 10 ** 12, 10_000);
    for (const c of claims) await this.journal.append(c.start);
    this.runIds.push(...claims.map((c) => c.runId));
    return claims.map((c) => c.start.find((e): e is RunStarted => e.type === 'run.started')!);
  }

  async events(type: JournalEvent['type']): Promise<JournalEvent[]> {
    const streams = await this.journal.streams(this.runIds);
    return this.runIds.flatMap((id) => streams.get(id) ?? []).filter((e) => e.type === type);
  }
}

describe('the reorg check', () => {
  it('walks back to the common ancestor, answers each run of a removed block once, and starts runs of the new logs', async () => {
    const h = new Harness();
    h.chain.emit(TOKEN, TRANSFER, transfer(1)); // block 1, stays
    h.chain.emit(TOKEN, TRANSFER, transfer(2)); // block 2, removed
    h.chain.emit(TOKEN, TRANSFER, transfer(3)); // block 3, removed
    await h.poll();
    const [kept, gone2, gone3] = await h.startRuns();
    await h.journal.append([{ type: 'run.finished', at: new Date(h.clock.now()).toISOString(), run_id: gone3!.run_id, status: 'succeeded' }]);

    h.chain.reorg(2, 1); // blocks 2 and 3 replaced, and one more block on top
    h.chain.emit(TOKEN, TRANSFER, transfer(4)); // block 5 of the new chain
    await h.poll();

    const responses = await h.events('reorg.response');
    expect(responses).toEqual([
      expect.objectContaining({ run_id: gone2!.run_id, workflow: 'on_deposit', network: 'devnet', block: 2, removed_block_hash: gone2!.trigger.block!.hash, depth: 2 }),
      expect.objectContaining({ run_id: gone3!.run_id, block: 3, removed_block_hash: gone3!.trigger.block!.hash, depth: 2 }),
    ]);
    expect(new Set(responses.map((r) => (r as { reorg_id: string }).reorg_id)).size).toBe(2);
    // The run still going ends cancelled `reorged`; the one that had ended stays as it was; the kept block's run is untouched.
    expect((await h.journal.get(gone2!.run_id))?.status).toBe('cancelled');
    expect((await h.journal.get(gone2!.run_id))?.errorKind).toBe('reorged');
    expect((await h.journal.get(gone3!.run_id))?.status).toBe('succeeded');
    expect((await h.journal.get(kept!.run_id))?.status).toBe('running');
    // The cursor went back to block 2: the new chain's log starts a run, the kept block's log does not start another.
    expect((await h.startRuns()).map((s) => [s.block, s.trigger.payload])).toEqual([[5, transfer(4)]]);
    expect(h.metrics.reorgs).toEqual([{ network: 'devnet', deep: false }]);
    expect(h.logger.named('reorg rolled back')).toEqual([
      expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ network: 'devnet', depth: 2, ancestor_block: 1, removed_blocks: [2, 3] }) }),
    ]);

    await h.poll();
    expect(await h.events('reorg.response')).toHaveLength(2);
    expect(h.metrics.reorgs).toHaveLength(1);
  });

  it('runs the on_reorg steps once per response with the reorg and the affected run in context, retrying as steps do', async () => {
    const h = new Harness();
    h.http.on('http://receiver.test/undo', status(503), status(200));
    h.chain.emit(TOKEN, TRANSFER, transfer(1));
    h.chain.emit(TOKEN, TRANSFER, transfer(7));
    await h.poll();
    const [, second] = await h.startRuns();
    h.chain.reorg(1, 1);
    await h.poll();
    await h.poll();
    const undo = h.http.requests.filter((r) => r.url === 'http://receiver.test/undo');
    expect(undo.map((r) => JSON.parse(r.body!))).toEqual([
      { run: second!.run_id, block: '2', value: '7' }, { run: second!.run_id, block: '2', value: '7' },
    ]);
    expect(h.waits).toEqual([1000]);
    const [response] = await h.events('reorg.response');
    const reorgId = (response as { reorg_id: string }).reorg_id;
    expect(await h.events('reorg.step')).toEqual([
      expect.objectContaining({ reorg_id: reorgId, step_id: 'undo', status: 'succeeded', output: expect.objectContaining({ status: 200 }) }),
      expect.objectContaining({ reorg_id: reorgId, step_id: 'only_deep', status: 'skipped' }),
    ]);
    expect(undo[0]!.headers['Idempotency-Key']).toBe(`${reorgId}.undo:1`);
  });

  it('retries a failing on_reorg step by its policy, then ends the walk there: the later steps do not run', async () => {
    const h = new Harness({}, [
      anHttpCall('undo', { method: 'POST', url: 'http://receiver.test/undo', retry: { attempts: 3, backoffMs: 1000, maxBackoffMs: 60_000 } }),
      anHttpCall('notify', { url: 'http://receiver.test/notify' }),
    ]);
    h.http.on('http://receiver.test/undo', status(503), status(503), status(503), status(200));
    h.http.on('http://receiver.test/notify', status(200));
    h.chain.emit(TOKEN, TRANSFER, transfer(1));
    h.chain.emit(TOKEN, TRANSFER, transfer(2));
    await h.poll();
    await h.startRuns();
    h.chain.reorg(1, 1);
    await h.poll();
    await h.poll();

    const [response] = await h.events('reorg.response');
    const reorgId = (response as { reorg_id: string }).reorg_id;
    // Three attempts, each with its own idempotency key, after the policy's backoff (1 s, then doubled).
    expect(h.http.requests.filter((r) => r.url === 'http://receiver.test/undo').map((r) => r.headers['Idempotency-Key']))
      .toEqual([`${reorgId}.undo:1`, `${reorgId}.undo:2`, `${reorgId}.undo:3`]);
    expect(h.waits).toEqual([1000, 2000]);
    expect(h.http.requests.filter((r) => r.url === 'http://receiver.test/notify')).toEqual([]);
    expect(await h.events('reorg.step')).toEqual([
      expect.objectContaining({ reorg_id: reorgId, step_id: 'undo', status: 'failed', error: expect.objectContaining({ kind: 'http_status' }) }),
    ]);
  });

  it('gives an on_reorg step the earlier ones in steps, and fails one that would park unsupported_step, not retried', async () => {
    const h = new Harness({}, [
      anHttpCall('ask', { url: 'http://receiver.test/ask' }),
      anHttpCall('tell', { if: 'steps.ask.output.status == 200 && "note" in steps', url: 'http://receiver.test/tell' }),
      aDelay('hold', 1000, { retry: { attempts: 3, backoffMs: 1000, maxBackoffMs: 60_000 } }),
      anHttpCall('after', { url: 'http://receiver.test/after' }),
    ]);
    h.http.on('http://receiver.test/ask', status(200));
    h.http.on('http://receiver.test/tell', status(200));
    h.http.on('http://receiver.test/after', status(200));
    h.chain.emit(TOKEN, TRANSFER, transfer(1));
    h.chain.emit(TOKEN, TRANSFER, transfer(2));
    await h.poll();
    const [, second] = await h.startRuns();
    // The affected run is in its first step (a delay) when the reorg comes.
    await h.journal.append([{
      type: 'step.started', at: new Date(h.clock.now()).toISOString(), run_id: second!.run_id, step_run_id: `${second!.run_id}.note`, step_id: 'note', step_type: 'delay', attempt: 1,
    }]);
    h.chain.reorg(1, 1);
    await h.poll();

    expect(h.http.requests.map((r) => r.url)).toEqual(['http://receiver.test/ask', 'http://receiver.test/tell']);
    expect(h.waits).toEqual([]);
    expect((await h.events('reorg.step')).map((e) => [(e as { step_id: string }).step_id, (e as { status: string }).status, (e as { error?: { kind: string } }).error?.kind]))
      .toEqual([['ask', 'succeeded', undefined], ['tell', 'succeeded', undefined], ['hold', 'failed', 'unsupported_step']]);
  });

  it('goes on after the last journaled on_reorg step when answering again after a crash', async () => {
    const h = new Harness({}, [
      anHttpCall('undo', { url: 'http://receiver.test/undo' }),
      anHttpCall('notify', { url: 'http://receiver.test/notify' }),
    ]);
    h.http.on('http://receiver.test/undo', status(200));
    h.http.on('http://receiver.test/notify', status(200));
    h.chain.emit(TOKEN, TRANSFER, transfer(1));
    h.chain.emit(TOKEN, TRANSFER, transfer(2));
    await h.poll();
    await h.startRuns();
    // The process dies as `notify` runs: `undo` is journaled, the response still pending.
    const append = h.journal.append.bind(h.journal);
    h.journal.append = async (events, options) => {
      if (events.some((e) => e.type === 'reorg.step' && e.step_id === 'notify')) throw new Error('engine died');
      return append(events, options);
    };
    h.chain.reorg(1, 1);
    await h.poll();
    h.journal.append = append;
    await h.poll();

    expect(h.http.requests.filter((r) => r.url === 'http://receiver.test/undo')).toHaveLength(1);
    expect(h.http.requests.filter((r) => r.url === 'http://receiver.test/notify')).toHaveLength(2);
    expect((await h.events('reorg.step')).map((e) => [(e as { step_id: string }).step_id, (e as { status: string }).status]))
      .toEqual([['undo', 'succeeded'], ['notify', 'succeeded']]);
  });

  it('journals every response of a reorg before any on_reorg step ends, and reads the new chain meanwhile', async () => {
    const h = new Harness();
    for (let i = 1; i <= 3; i++) h.chain.emit(TOKEN, TRANSFER, transfer(i));
    await h.poll();
    const [, gone2, gone3] = await h.startRuns();
    // The operator's receiver takes its time: no on_reorg step ends until it answers.
    let answer: () => void = () => undefined;
    const slow = new Promise<void>((resolve) => {
      answer = resolve;
    });
    h.http.on('http://receiver.test/undo', async () => {
      await slow;
      return status(200);
    });
    h.chain.reorg(2, 1);
    h.chain.emit(TOKEN, TRANSFER, transfer(4));
    h.clock.advance(60_000);
    await h.poller.execute();
    // The poll is over while the first step still waits: the new chain's log has its run.
    expect((await h.startRuns()).map((s) => s.trigger.payload)).toEqual([transfer(4)]);
    for (let i = 0; i < 20 && (await h.events('reorg.response')).length < 2; i++) await new Promise((r) => setImmediate(r));
    expect((await h.events('reorg.response')).map((r) => (r as { run_id: string }).run_id)).toEqual([gone2!.run_id, gone3!.run_id]);
    expect(await h.events('reorg.step')).toEqual([]);
    answer();
    await h.poller.answered();
    expect((await h.events('reorg.step')).filter((e) => (e as { step_id: string }).step_id === 'undo')).toHaveLength(2);
  });

  it('sees a head at the same height with another hash as a reorg', async () => {
    const h = new Harness();
    h.chain.emit(TOKEN, TRANSFER, transfer(1));
    h.chain.emit(TOKEN, TRANSFER, transfer(2));
    await h.poll();
    const [, second] = await h.startRuns();
    // Block 2 replaced by an empty one: the head's number is the same, its hash is not.
    h.chain.reorg(1);
    await h.poll();
    expect(await h.events('reorg.response')).toEqual([expect.objectContaining({ run_id: second!.run_id, block: 2, depth: 1 })]);
  });

  it('rolls a reorg back once when two engine processes see it: one response per run, one count', async () => {
    const h = await Harness.reorgedAfterTwoRuns();
    const other = h.newPoller();
    await Promise.all([h.poll(), h.poll(other)]);
    await h.poll(other);
    expect(await h.events('reorg.response')).toHaveLength(1);
    expect(h.metrics.reorgs).toEqual([{ network: 'devnet', deep: false }]);
  });

  it('journals a response recorded before a crash at the next poll, and once', async () => {
    const h = await Harness.reorgedAfterTwoRuns();
    // The journal is down while the poll rolls the reorg back: the response stays recorded.
    const append = h.journal.append.bind(h.journal);
    h.journal.append = async () => {
      throw new Error('journal down');
    };
    await h.poll();
    h.journal.append = append;
    expect(await h.events('reorg.response')).toEqual([]);
    expect(h.logger.named('reorg responses not journaled; tried again at the next poll')).toHaveLength(1);
    await h.poll();
    await h.poll();
    expect(await h.events('reorg.response')).toHaveLength(1);
    expect(h.metrics.reorgs).toHaveLength(1);
  });

  it('logs and counts a reorg deeper than finality_depth, and rolls nothing back', async () => {
    const h = new Harness({ finalityDepth: 3 });
    for (let i = 1; i <= 5; i++) h.chain.emit(TOKEN, TRANSFER, transfer(i));
    await h.poll();
    const runs = await h.startRuns();
    expect(runs).toHaveLength(5);
    h.chain.reorg(4, 1);
    await h.poll();
    expect(await h.events('reorg.response')).toEqual([]);
    expect(h.metrics.reorgs).toEqual([{ network: 'devnet', deep: true }]);
    expect(h.logger.named('reorg deeper than finality_depth: not rolled back')).toEqual([
      expect.objectContaining({ level: 'error', fields: expect.objectContaining({ network: 'devnet', finality_depth: 3 }) }),
    ]);
    expect(await h.cursors.cursor('on_deposit')).toBe(7n);
    expect(await h.startRuns()).toEqual([]);
    await h.poll();
    expect(h.metrics.reorgs).toHaveLength(1);
  });
});
