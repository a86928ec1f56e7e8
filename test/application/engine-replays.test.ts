/**
 * Replays (CONTRACT 8.6) on fakes: `ReplayEvents` reads a workflow's logs of a block range as the poller does, and
 * starts a `replay` session of one run per log in chain order, each linked (`replay_of`) to the live run of its log;
 * the engine drives them with sends simulated at the log's block and never broadcast, reads at that block, delays
 * at once, approvals approved by `replay`, `in_test: skip` steps skipped; the live cursor stays; the session ends with
 * its last run. Bad requests are refused naming the field, and change nothing.
 */
import { ReplayEvents } from '../../src/application/engine/replay-events.use-case';
import { PollEventLogs } from '../../src/application/engine/poll-event-logs.use-case';
import { WorkflowCatalog } from '../../src/application/workflow-catalog';
import type { StepDefinition, WorkflowDefinition } from '../../src/domain/engine/workflow';
import { InvalidInputError, NotFoundError } from '../../src/domain/errors';
import type { RunStarted } from '../../src/domain/journal/journal-event';
import { InMemoryChainLogs } from '../fakes/in-memory-chain-logs';
import { InMemoryEventCursors } from '../fakes/in-memory-event-cursors';
import { RecordingLogger } from '../fakes/recording-logger';
import { ALICE, TOKEN, transfer, TRANSFER } from '../mothers/events';
import { aDelay, anApproval, anHttpCall, aRead, aSend, aWorkflow } from '../mothers/workflows';
import { RELAYER_ADDRESS, RPC_URL, SendHarness } from '../support/send-harness';

const BALANCE_OF = 'balanceOf(address) returns (uint256)';

class Harness extends SendHarness {
  readonly logs = new InMemoryChainLogs();
  readonly cursors = new InMemoryEventCursors(this.engineStore);
  readonly replays: ReplayEvents;
  readonly poller: PollEventLogs;

  constructor(workflow: WorkflowDefinition) {
    super({ workflows: [workflow, aWorkflow({ name: 'by_hand', steps: [] })] });
    const catalog = new WorkflowCatalog(this.config);
    const logger = new RecordingLogger();
    this.replays = new ReplayEvents(this.config, catalog, this.logs, this.cursors, this.engineStore, this.journal, this.clock, logger);
    this.poller = new PollEventLogs(this.config, catalog, this.logs, this.cursors, this.journal, this.journal, this.clock, logger);
    this.chain.answerCalls(TOKEN, () => `0x${'0'.repeat(63)}7`);
  }

  async poll(): Promise<void> {
    this.clock.advance(60_000);
    await this.poller.execute();
  }

  /** Engine passes until nothing is due. */
  async drain(): Promise<void> {
    for (let i = 0; i < 20; i++) if ((await this.tick()).length === 0) return;
  }

  async started(sessionId: string): Promise<RunStarted[]> {
    const runs = await this.journal.list({ sessionId }, { limit: 500 });
    const starts = await Promise.all(runs.map(async (r) => (await this.events(r.runId, 'run.started'))[0]!));
    return starts.sort((a, b) => (a.run_id < b.run_id ? -1 : 1));
  }
}

const onDeposit = (steps: StepDefinition[]): WorkflowDefinition => aWorkflow({
  name: 'on_deposit', steps,
  trigger: { kind: 'event', network: 'sepolia', addresses: [TOKEN], event: TRANSFER, confirmations: 1, fromBlock: 1 },
});

/** Three logs in blocks 1 (two) and 3, their live runs started by the poller; then two more blocks. */
async function withLiveRuns(steps: StepDefinition[]): Promise<Harness> {
  const h = new Harness(onDeposit(steps));
  h.logs.emit(TOKEN, TRANSFER, transfer(1), transfer(2));
  h.logs.mine(1);
  h.logs.emit(TOKEN, TRANSFER, transfer(3));
  await h.poll();
  h.logs.mine(2);
  return h;
}

describe('a replay session', () => {
  it('runs one run per log of the range in chain order, each linked to the live run of its log, and ends with its last run', async () => {
    const h = await withLiveRuns([anHttpCall('note', { skipInTest: true })]);
    const live = (await h.engineStore.claimDue('live', h.clock.now(), h.clock.now() + 1, 100)).map((c) => c.start.find((e): e is RunStarted => e.type === 'run.started')!);
    await h.engineStore.release('live', live[0]!.run_id, h.clock.now());
    for (const r of live.slice(1)) await h.engineStore.release('live', r.run_id, h.clock.now());
    const cursor = await h.cursors.cursor('on_deposit');

    const { session_id: sessionId, run_count: count } = await h.replays.execute({ workflow: 'on_deposit', fromBlock: 1, toBlock: '4' });
    expect(count).toBe(3);
    await h.drain();

    const runs = await h.started(sessionId);
    expect(runs.map((r) => [r.trigger.payload, r.block, r.session, r.session_id])).toEqual([
      [transfer(1), 1, 'replay', sessionId], [transfer(2), 1, 'replay', sessionId], [transfer(3), 3, 'replay', sessionId],
    ]);
    expect(runs.map((r) => r.replay_of)).toEqual(live.map((r) => r.run_id));
    for (const r of runs) expect(await h.status(r.run_id)).toBe('succeeded');
    // The http_call is `in_test: skip`: skipped in the replay, and called by the live runs only.
    expect((await h.events(runs[0]!.run_id, 'step.finished')).map((e) => e.status)).toEqual(['skipped']);
    expect(h.http.requests.map((r) => r.headers['Idempotency-Key']).sort()).toEqual(live.map((r) => `${r.run_id}.note:1`).sort());
    const [session] = await h.journal.listSessions({ equals: {} }, { limit: 10 });
    expect(session).toMatchObject({ sessionId, kind: 'replay', workflow: 'on_deposit', runCount: 3, fromBlock: 1, toBlock: 4, finishedAt: expect.any(Number) });
    expect(await h.cursors.cursor('on_deposit')).toBe(cursor);
  });

  it('stays open while one of its runs is still going', async () => {
    const h = await withLiveRuns([anHttpCall('note')]);
    const { session_id: sessionId } = await h.replays.execute({ workflow: 'on_deposit', fromBlock: 3, toBlock: 3 });
    const [run] = await h.started(sessionId);
    expect((await h.journal.listSessions({ equals: {} }, { limit: 10 }))[0]!.finishedAt).toBeNull();
    await h.drain();
    expect(await h.status(run!.run_id)).toBe('succeeded');
    expect((await h.journal.listSessions({ equals: {} }, { limit: 10 }))[0]!.finishedAt).not.toBeNull();
  });

  it('simulates a send at the log\'s block and never broadcasts it, reads at that block, and neither waits nor asks anyone', async () => {
    const h = await withLiveRuns([
      anApproval('ok'), aDelay('pause', 3_600_000), aRead('bal', TOKEN, BALANCE_OF, [ALICE]), aSend('pay', { value: '${{ trigger.payload.value }}' }),
    ]);
    const nonce = await h.chain.nonce({ network: 'sepolia', chainId: 11155111, rpc: [RPC_URL] }, RELAYER_ADDRESS, 'pending');
    const { session_id: sessionId } = await h.replays.execute({ workflow: 'on_deposit', fromBlock: 3, toBlock: 4 });
    await h.drain();
    const [run] = await h.started(sessionId);
    expect(await h.status(run!.run_id)).toBe('succeeded');
    const finished = await h.events(run!.run_id, 'step.finished');
    expect(finished.map((e) => [e.status, e.output])).toEqual([
      ['succeeded', { decision: 'approved', by: 'replay', reason: null }],
      ['succeeded', expect.objectContaining({ not_waited: 'replay session' })],
      ['succeeded', { result: '7' }],
      ['succeeded', expect.objectContaining({ status: 'queued', simulated: true })],
    ]);
    expect(await h.events(run!.run_id, 'approval.decided')).toEqual([expect.objectContaining({ decision: 'approved', by: 'replay' })]);
    expect(await h.events(run!.run_id, 'step.simulated')).toEqual([expect.objectContaining({ ok: true })]);
    expect(await h.events(run!.run_id, 'send.queued')).toEqual([expect.objectContaining({ value_wei: '3', relayer: 'ops' })]);
    expect(await h.events(run!.run_id, 'send.submitted')).toEqual([]);
    expect(h.chain.callBlocks.filter((c) => c.to === TOKEN || c.kind === 'simulate').map((c) => [c.kind, c.block])).toEqual([['call', 3n], ['simulate', 3n]]);
    expect(h.chain.broadcasts).toBe(0);
    expect(await h.chain.nonce({ network: 'sepolia', chainId: 11155111, rpc: [RPC_URL] }, RELAYER_ADDRESS, 'pending')).toBe(nonce);
    expect(await h.spend.latest({}, 10)).toEqual([]);
  });

  it('goes on in another engine process when the one that claimed its runs died, and ends once they all did', async () => {
    const h = await withLiveRuns([aSend('pay', { value: '${{ trigger.payload.value }}' })]);
    const { session_id: sessionId } = await h.replays.execute({ workflow: 'on_deposit', fromBlock: 1, toBlock: 4 });
    // A process claims the session's runs (and the live ones) and dies before driving any: their leases run out.
    await h.engineStore.claimDue('dead', h.clock.now(), h.clock.now() + 15_000, 100);
    expect(await h.tick('other')).toEqual([]);
    h.clock.advance(20_000);
    await h.drain();
    const runs = await h.started(sessionId);
    for (const r of runs) expect(await h.status(r.run_id)).toBe('succeeded');
    expect(runs).toHaveLength(3);
    expect((await h.journal.listSessions({ equals: {} }, { limit: 10 }))[0]).toMatchObject({ sessionId, finishedAt: expect.any(Number) });
    for (const r of runs) expect(await h.events(r.run_id, 'send.submitted')).toEqual([]);
  });

  it('runs nothing for a range without logs, and its session is finished at once', async () => {
    const h = await withLiveRuns([anHttpCall('note')]);
    const { session_id: sessionId, run_count: count } = await h.replays.execute({ workflow: 'on_deposit', fromBlock: 4, toBlock: 5 });
    expect(count).toBe(0);
    expect(await h.started(sessionId)).toEqual([]);
    expect((await h.journal.listSessions({ equals: {} }, { limit: 10 }))[0]).toMatchObject({ sessionId, runCount: 0, finishedAt: expect.any(Number) });
  });

  it('refuses bad requests naming the field, and records nothing', async () => {
    const h = await withLiveRuns([anHttpCall('note')]);
    const refused = async (req: { workflow?: string; fromBlock: unknown; toBlock: unknown }): Promise<unknown> =>
      h.replays.execute({ workflow: 'on_deposit', ...req }).then(() => undefined, (err: unknown) => err);
    const field = (err: unknown): string | undefined => (err instanceof InvalidInputError ? err.field : undefined);
    expect(await refused({ workflow: 'nope', fromBlock: 1, toBlock: 2 })).toBeInstanceOf(NotFoundError);
    expect(field(await refused({ workflow: 'by_hand', fromBlock: 1, toBlock: 2 }))).toBe('workflow');
    expect(field(await refused({ fromBlock: -1, toBlock: 2 }))).toBe('from_block');
    expect(field(await refused({ fromBlock: '1.5', toBlock: 2 }))).toBe('from_block');
    expect(field(await refused({ fromBlock: 1, toBlock: undefined }))).toBe('to_block');
    expect(field(await refused({ fromBlock: 3, toBlock: 2 }))).toBe('to_block');
    expect(String(await refused({ fromBlock: 1, toBlock: 6 }))).toMatch(/to_block: is above the chain's head \(block 5\)/);
    expect(field(await refused({ fromBlock: 0, toBlock: 100_000 }))).toBe('to_block');
    expect(await h.journal.listSessions({ equals: {} }, { limit: 10 })).toEqual([]);
  });
});

describe('a test session', () => {
  it('neither waits for a delay nor for anyone\'s approval either, and skips in_test: skip steps', async () => {
    const h = new SendHarness({ workflows: [aWorkflow({ name: 'payouts', steps: [anApproval('ok'), aDelay('pause', 3_600_000), anHttpCall('note', { skipInTest: true })] })] });
    const runId = await h.run('payouts', {}, 'test');
    expect(await h.status(runId)).toBe('succeeded');
    expect((await h.events(runId, 'step.finished')).map((e) => [e.status, e.output])).toEqual([
      ['succeeded', { decision: 'approved', by: 'test', reason: null }],
      ['succeeded', expect.objectContaining({ not_waited: 'test session' })],
      ['skipped', { reason: 'in_test: skip' }],
    ]);
    expect(h.http.requests).toHaveLength(0);
  });
});
