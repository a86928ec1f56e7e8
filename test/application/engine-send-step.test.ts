/**
 * The engine's send and read steps (CONTRACT 8.5, 8.1) on fakes of every port: simulate, budget, nonce, journal before
 * broadcast, settle; stuck transactions replaced, expired ones cancelled; crashes at each point recovered by the
 * journaled hash without paying twice; wait_for none/submitted settled by the watcher; test sessions never broadcast.
 */
import { Web3Abi } from '../../src/adapters/chain/web3-abi';
import { CelExpressions } from '../../src/adapters/cel';
import { CancelRun } from '../../src/application/engine/cancel-run.use-case';
import { DriveRun } from '../../src/application/engine/drive-run.use-case';
import { SendStep } from '../../src/application/engine/send-step';
import { StepRunners } from '../../src/application/engine/step-runners';
import { WorkflowCatalog } from '../../src/application/workflow-catalog';
import type { ChainflowConfig } from '../../src/application/config';
import { LeaseLostError } from '../../src/domain/errors';
import { Relayers } from '../../src/application/sends/relayers';
import type { JournalEvent } from '../../src/domain/journal/journal-event';
import type { InMemoryChain } from '../fakes/in-memory-chain';
import { T0 } from '../mothers/journal-events';
import { aRead, aSend, aWorkflow } from '../mothers/workflows';
import { RELAYER_ADDRESS, SendHarness, TO } from '../support/send-harness';

const LANE = { relayer: 'ops', network: 'sepolia' };
const TTL = 15_000;

function payouts(fields: Record<string, unknown> = {}, overrides: Parameters<typeof aSend>[2] = {}) {
  return aWorkflow({ name: 'payouts', steps: [aSend('pay', { to: '${{ trigger.payload.to }}', value: '${{ trigger.payload.amount }}', ...fields }, overrides)] });
}

const types = (events: readonly JournalEvent[]): string[] => events.map((e) => e.type);

describe('send steps', () => {
  it('pays: simulated, checked, queued and submitted before the broadcast, settled with its receipt, and one ledger entry', async () => {
    const h = new SendHarness({ workflows: [payouts()], gasCapWei: 10n ** 18n });
    const runId = await h.run('payouts', { to: TO, amount: '0.5 ether' });
    expect(await h.status(runId)).toBe('succeeded');
    expect(types(await h.events(runId))).toEqual([
      'run.started', 'step.started', 'step.simulated', 'budget.checked', 'send.queued', 'send.submitted', 'send.settled', 'step.finished', 'run.finished',
    ]);
    const [started] = await h.events(runId, 'step.started');
    expect(started!.input).toMatchObject({ relayer: 'ops', network: 'sepolia', to: TO, value_wei: '500000000000000000', wait_for: 'confirmed', confirmations: 1 });
    expect(await h.events(runId, 'step.simulated')).toEqual([expect.objectContaining({ ok: true, gas_estimate: '21000' })]);
    const [submitted] = await h.events(runId, 'send.submitted');
    expect(submitted).toMatchObject({ send_id: `${runId}.pay:1`, nonce: 0 });
    expect(await h.events(runId, 'send.settled')).toEqual([expect.objectContaining({ outcome: 'confirmed', tx_hash: submitted!.tx_hash })]);
    const [finished] = await h.events(runId, 'step.finished');
    expect(finished!.output).toMatchObject({ status: 'settled', outcome: 'confirmed', tx_hash: submitted!.tx_hash, gas_used: '21000' });
    expect(await h.chain.balance({ network: 'sepolia', chainId: 11155111, rpc: ['http://x.invalid'] }, TO)).toBe(5n * 10n ** 17n);
    expect(h.spend.all()).toEqual([expect.objectContaining({ txHash: submitted!.tx_hash, valueWei: 5n * 10n ** 17n, gasSpendWei: 21_000n * 2_000_000_000n })]);
    expect(h.metrics.outcomes).toEqual(['confirmed']);
    // The watch outlives the settle until the watcher finds it settled: it lets it go and settles nothing twice.
    h.clock.advance(120_000);
    expect(await h.watch.drain('engine-b')).toBe(0);
    expect(await h.store.count()).toBe(0);
    expect(await h.events(runId, 'send.settled')).toHaveLength(1);
  });

  it('a call is ABI-encoded from its human-readable signature', async () => {
    const h = new SendHarness({ workflows: [payouts({ value: '0', call: { function: 'transfer(address,uint256)', args: ['${{ trigger.payload.to }}', '${{ trigger.payload.amount }}'] } })] });
    await h.run('payouts', { to: TO, amount: '1000000' });
    const [tx] = h.chain.transactions();
    expect(tx!.data).toBe(`0xa9059cbb${'0'.repeat(24)}${TO.slice(2)}${(1_000_000).toString(16).padStart(64, '0')}`);
  });

  it('a transaction that would revert fails simulation_failed with the reason, and nothing is broadcast or reserved', async () => {
    const h = new SendHarness({ workflows: [payouts()] });
    h.chain.revertCallsTo(TO);
    const runId = await h.run('payouts', { to: TO, amount: '1' });
    expect(await h.status(runId)).toBe('failed');
    expect(await h.events(runId, 'step.simulated')).toEqual([expect.objectContaining({ ok: false, revert_reason: expect.stringMatching(/revert/) })]);
    expect((await h.journal.get(runId))!.errorKind).toBe('simulation_failed');
    expect(h.chain.broadcasts).toBe(0);
    expect(await h.events(runId, 'send.queued')).toEqual([]);
    expect(await h.store.count()).toBe(0);
  });

  it('the gas budget cap refuses the send that finds it reached: budget_exceeded, nothing broadcast, no nonce taken', async () => {
    const h = new SendHarness({ workflows: [payouts()], gasCapWei: 2n * 21_000n * 2_000_000_000n });
    const paid = [await h.run('payouts', { to: TO, amount: '1' }), await h.run('payouts', { to: TO, amount: '1' })];
    for (const id of paid) expect(await h.status(id)).toBe('succeeded');
    const refused = await h.run('payouts', { to: TO, amount: '1' });
    expect(await h.status(refused)).toBe('failed');
    expect((await h.journal.get(refused))!.errorKind).toBe('budget_exceeded');
    expect(await h.events(refused, 'budget.checked')).toEqual([expect.objectContaining({ allowed: false, spent_wei: String(2n * 21_000n * 2_000_000_000n) })]);
    expect(await h.events(refused, 'send.queued')).toEqual([]);
    expect(h.chain.transactions()).toHaveLength(2);
    expect(h.metrics.refusals).toBe(1);
    expect(await h.store.reserve(LANE, 'probe', T0, 60_000)).toBe(2);
  });

  it('a reverted transaction settles reverted: the step fails reverted (never retried) and its gas is the reverted loss', async () => {
    const h = new SendHarness({ workflows: [payouts({}, { retry: { attempts: 3, backoffMs: 1000, maxBackoffMs: 60_000 } })] });
    h.chain.revertOnChainOnly(TO);
    const runId = await h.run('payouts', { to: TO, amount: '100' });
    expect(await h.status(runId)).toBe('failed');
    expect((await h.journal.get(runId))!.errorKind).toBe('reverted');
    expect(await h.events(runId, 'step.started')).toHaveLength(1);
    expect(h.spend.all()).toEqual([expect.objectContaining({ reverted: true, valueWei: 0n })]);
  });

  it('a stuck transaction parks the run; after replace_after it is signed again at its nonce with fees raised 12.5%, and the replacement lands', async () => {
    const h = new SendHarness({ workflows: [payouts()], network: { replaceAfterMs: 30_000 } });
    h.chain.holdMining();
    const runId = await h.run('payouts', { to: TO, amount: '7' });
    expect(await h.status(runId)).toBe('waiting');
    expect(await h.events(runId, 'run.parked')).toEqual([expect.objectContaining({ wait_kind: 'tx', step_run_id: `${runId}.pay` })]);
    const [first] = h.chain.transactions();
    h.clock.advance(30_000);
    await h.tick();
    const submitted = await h.events(runId, 'send.submitted');
    expect(submitted).toHaveLength(2);
    expect(submitted[1]).toMatchObject({ nonce: first!.nonce, replacement: 'fee_bump' });
    const [replacement] = h.chain.transactions();
    expect(replacement!.hash).toBe(submitted[1]!.tx_hash);
    expect(replacement!.fees).toEqual({ kind: 'eip1559', maxFeePerGas: 3_375_000_000n, maxPriorityFeePerGas: 1_125_000_000n });
    expect(h.metrics.replacements).toBe(1);
    h.chain.mine();
    h.clock.advance(1_000);
    await h.tick();
    expect(await h.status(runId)).toBe('succeeded');
    expect(await h.events(runId, 'send.settled')).toEqual([expect.objectContaining({ outcome: 'confirmed', tx_hash: submitted[1]!.tx_hash })]);
    expect(await h.chain.balance({ network: 'sepolia', chainId: 11155111, rpc: ['http://x.invalid'] }, TO)).toBe(7n);
  });

  it.each([
    ['the relayer', (c: ChainflowConfig): ChainflowConfig => ({ ...c, relayers: new Map() })],
    ['the network', (c: ChainflowConfig): ChainflowConfig => ({ ...c, networks: new Map() })],
  ])('%s removed from the config while a send is in flight: the run dead-letters (definition_changed), no crash loop, its value released', async (_, change) => {
    const h = new SendHarness({ workflows: [payouts()], budgets: [{ name: 'value_cap', windowMs: 86_400_000, maxNativeValueWei: 10n, scope: {} }] });
    h.chain.holdMining();
    const runId = await h.run('payouts', { to: TO, amount: '7' });
    expect(await h.status(runId)).toBe('waiting');
    // Another 7 wei would not fit beside the 7 in flight (a refusal reserves nothing).
    const probe = (n: number) => h.budget.evaluate({ runId: `probe${n}`, stepRunId: `probe${n}.pay`, sendId: `probe${n}.pay:1`, workflow: 'payouts', relayer: 'ops', valueWei: 7n });
    expect((await probe(1)).allowed).toBe(false);
    // Restarted with the changed configuration.
    const config = change(h.config);
    const catalog = new WorkflowCatalog(config);
    const relayers = new Relayers(config, h.chain);
    const expressions = new CelExpressions();
    const sendStep = new SendStep(h.submit, h.advance, h.store, relayers, h.budget, h.journal, new Web3Abi(), expressions, h.clock);
    const drive = new DriveRun(h.journal, h.journal, h.engineStore, catalog, new StepRunners(h.http, expressions, h.clock, sendStep), expressions, h.clock);
    h.clock.advance(TTL + 1);
    const claims = await h.engineStore.claimDue('restarted', h.clock.now(), h.clock.now() + TTL, 10);
    expect(claims.map((c) => c.runId)).toEqual([runId]);
    expect(await drive.execute(claims[0]!, 'restarted')).toBe('finished');
    expect(await h.journal.get(runId)).toMatchObject({ status: 'dead_lettered', errorKind: 'definition_changed' });
    expect(h.engineStore.scheduled()).toEqual([]);
    // Nobody follows the dead-lettered run's send: its reservation no longer holds the cap.
    expect((await probe(2)).allowed).toBe(true);
  });

  it('a send by a driver whose lease was taken over is refused at its journal write: nothing is broadcast', async () => {
    const h = new SendHarness({ workflows: [payouts()] });
    const { runId } = await h.start.execute({ workflow: 'payouts', trigger: { kind: 'manual', summary: 'manual', payload: { to: TO, amount: '7' } } });
    const [stale] = await h.engineStore.claimDue('engine-a', h.clock.now(), h.clock.now() + TTL, 1);
    h.clock.advance(TTL + 1);
    await h.engineStore.claimDue('engine-b', h.clock.now(), h.clock.now() + TTL, 1);
    await expect(h.submit.execute({
      runId, stepRunId: `${runId}.pay`, sendId: `${runId}.pay.1`, workflow: 'payouts', session: 'live', relayer: 'ops', to: TO, valueWei: 7n, data: '0x',
      idempotencyKey: 'k', simulate: true, detached: false, fence: { runId, token: stale!.fence },
    })).rejects.toBeInstanceOf(LeaseLostError);
    expect(h.chain.broadcasts).toBe(0);
    expect(await h.events(runId, 'send.submitted')).toEqual([]);
  });

  it('the fee cap stops replacements: at max_fee_per_gas the send waits at its fee, never a dearer one', async () => {
    const h = new SendHarness({ workflows: [payouts()], network: { replaceAfterMs: 30_000, maxFeePerGasWei: 3_000_000_000n } });
    h.chain.holdMining();
    const runId = await h.run('payouts', { to: TO, amount: '7' });
    h.clock.advance(30_000);
    await h.tick();
    expect(await h.events(runId, 'send.submitted')).toHaveLength(1);
    expect(h.metrics.replacements).toBe(0);
  });

  it('not landed within the step timeout: a zero-value self-transfer frees the nonce, the send settles expired, its gas in the ledger', async () => {
    const h = new SendHarness({ workflows: [payouts({}, { timeoutMs: 120_000 })], network: { replaceAfterMs: 600_000 } });
    h.chain.holdMining();
    const runId = await h.run('payouts', { to: TO, amount: '9' });
    const [parked] = await h.events(runId, 'run.parked');
    expect(parked!.expires_at).toBe(new Date(T0 + 120_000).toISOString());
    h.clock.advance(120_000);
    await h.tick();
    const cancel = (await h.events(runId, 'send.submitted'))[1]!;
    expect(cancel).toMatchObject({ replacement: 'cancel', nonce: 0 });
    expect(h.chain.transactions()).toEqual([expect.objectContaining({ hash: cancel.tx_hash, to: RELAYER_ADDRESS, valueWei: 0n, nonce: 0 })]);
    h.chain.mine();
    h.clock.advance(1_000);
    await h.tick();
    expect(await h.status(runId)).toBe('failed');
    expect((await h.journal.get(runId))!.errorKind).toBe('tx_expired');
    expect(await h.events(runId, 'send.settled')).toEqual([expect.objectContaining({ outcome: 'expired', tx_hash: cancel.tx_hash })]);
    expect(h.spend.all()).toEqual([expect.objectContaining({ txHash: cancel.tx_hash, valueWei: 0n, reverted: false, workflow: 'payouts', gasUsed: 21_000n })]);
    expect(await h.chain.balance({ network: 'sepolia', chainId: 11155111, rpc: ['http://x.invalid'] }, TO)).toBe(0n);
    expect(h.metrics.cancels).toBe(1);
    expect(h.logger.named('send expired')).toEqual([{ level: 'warn', message: 'send expired', fields: expect.objectContaining({ outcome: 'expired', tx_hash: cancel.tx_hash }) }]);
    expect(h.logger.named('run failed')).toEqual([{ level: 'error', message: 'run failed', fields: {
      run_id: runId, workflow: 'payouts', step: 'pay', status: 'failed', error_kind: 'tx_expired', message: expect.stringContaining('not mined'),
    } }]);
  });

  it('waits for the confirmations asked: a receipt with fewer blocks on top does not settle the send yet', async () => {
    const h = new SendHarness({ workflows: [payouts({ confirmations: 3 })] });
    const runId = await h.run('payouts', { to: TO, amount: '4' });
    expect(await h.status(runId)).toBe('waiting');
    expect(await h.events(runId, 'send.settled')).toEqual([]);
    // Two more blocks (two other transfers of another account) give the receipt its three confirmations.
    h.chain.addAccount(`0x${'cd'.repeat(32)}`, '0x00000000000000000000000000000000000000cd', 10n ** 20n);
    for (const nonce of [0, 1]) {
      const tx = await h.chain.sign({ chainId: 11155111, signer: `0x${'cd'.repeat(32)}`, nonce, to: TO, valueWei: 1n, data: '0x', gasLimit: 21_000n, fees: { kind: 'legacy', gasPrice: 5_000_000_000n } });
      await h.chain.broadcast({ network: 'sepolia', chainId: 11155111, rpc: ['http://x.invalid'] }, tx);
    }
    h.clock.advance(1_000);
    await h.tick();
    expect(await h.status(runId)).toBe('succeeded');
  });

  it('a nonce used by another transaction of the key settles the send replaced (tx_dropped); nothing of it is broadcast again', async () => {
    const h = new SendHarness({ workflows: [payouts()] });
    h.chain.holdMining();
    const runId = await h.run('payouts', { to: TO, amount: '3' });
    h.chain.dropPending();
    // Another client of the same key uses nonce 0.
    const other = await h.chain.sign({ chainId: 11155111, signer: `0x${'ab'.repeat(32)}`, nonce: 0, to: TO, valueWei: 1n, data: '0x', gasLimit: 21_000n, fees: { kind: 'legacy', gasPrice: 5_000_000_000n } });
    h.chain.mine();
    await h.chain.broadcast({ network: 'sepolia', chainId: 11155111, rpc: ['http://x.invalid'] }, other);
    // Seen once, it is read again rather than believed (a receipt may lag the nonce); seen again, it settles.
    h.clock.advance(1_000);
    await h.tick();
    expect(await h.events(runId, 'send.settled')).toEqual([]);
    h.clock.advance(1_000);
    await h.tick();
    expect(await h.events(runId, 'send.settled')).toEqual([expect.objectContaining({ outcome: 'replaced' })]);
    expect((await h.journal.get(runId))!.errorKind).toBe('tx_dropped');
    expect(h.logger.named('send replaced')).toEqual([expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ outcome: 'replaced' }) })]);
  });

  describe('crashes', () => {
    /** A chain whose next broadcast "kills the process" (throws an error no caller handles) before sending anything. */
    function dieOnBroadcast(chain: InMemoryChain): () => void {
      const real = chain.broadcast.bind(chain);
      chain.broadcast = async () => {
        throw new Error('process killed');
      };
      return () => {
        chain.broadcast = real;
      };
    }

    it('killed after journaling submitted and before the broadcast: recovered by the hash, the same bytes sent, paid once', async () => {
      const h = new SendHarness({ workflows: [payouts()] });
      const revive = dieOnBroadcast(h.chain);
      const { runId } = await h.start.execute({ workflow: 'payouts', trigger: { kind: 'manual', summary: 'test', payload: { to: TO, amount: '11' } } });
      await expect(h.tick()).rejects.toThrow('process killed');
      revive();
      const [submitted] = await h.events(runId, 'send.submitted');
      expect(h.chain.transactions()).toEqual([]);
      h.clock.advance(TTL + 1);
      await h.tick('engine-b');
      expect(h.chain.transactions()).toEqual([expect.objectContaining({ hash: submitted!.tx_hash, valueWei: 11n })]);
      h.clock.advance(1_000);
      await h.tick('engine-b');
      expect(await h.status(runId)).toBe('succeeded');
      expect(await h.events(runId, 'send.queued')).toHaveLength(1);
      expect(await h.events(runId, 'step.started')).toHaveLength(1);
      expect(await h.events(runId, 'send.settled')).toEqual([expect.objectContaining({ outcome: 'confirmed', tx_hash: submitted!.tx_hash })]);
    });

    it('killed after the broadcast: found on chain by its hash and awaited, never sent again', async () => {
      const h = new SendHarness({ workflows: [payouts()] });
      h.chain.holdMining();
      const runId = await h.run('payouts', { to: TO, amount: '12' });
      const before = h.chain.broadcasts;
      h.chain.mine();
      // The parked run's process died: another engine takes the run when it is due.
      h.clock.advance(TTL + 1);
      await h.tick('engine-b');
      expect(await h.status(runId)).toBe('succeeded');
      expect(h.chain.broadcasts).toBe(before);
      expect(h.chain.transactions()).toHaveLength(1);
    });

    it('the transaction vanished from every pool while the engine was down: the same signed bytes are broadcast again (same hash)', async () => {
      const h = new SendHarness({ workflows: [payouts()] });
      h.chain.holdMining();
      const runId = await h.run('payouts', { to: TO, amount: '13' });
      const [submitted] = await h.events(runId, 'send.submitted');
      h.chain.dropPending();
      h.restart();
      h.clock.advance(1_000);
      await h.tick();
      expect(h.chain.transactions()).toEqual([expect.objectContaining({ hash: submitted!.tx_hash })]);
      h.chain.mine();
      h.clock.advance(1_000);
      await h.tick();
      expect(await h.status(runId)).toBe('succeeded');
      expect(await h.events(runId, 'send.submitted')).toHaveLength(1);
    });

    it('killed after the receipt was seen and before the settle was journaled: the next look settles it (the watch survives)', async () => {
      const h = new SendHarness({ workflows: [payouts()] });
      h.chain.holdMining();
      const runId = await h.run('payouts', { to: TO, amount: '16' });
      h.chain.mine();
      const real = h.journal.append.bind(h.journal);
      h.journal.append = async (events) => {
        if (events.some((e) => e.type === 'send.settled')) throw new Error('process killed');
        return real(events);
      };
      h.clock.advance(1_000);
      await expect(h.tick()).rejects.toThrow('process killed');
      h.journal.append = real;
      // The dead look's lease on the send (60 s) runs out; the run, due again, settles it.
      h.clock.advance(60_001);
      await h.tick('engine-b');
      expect(await h.status(runId)).toBe('succeeded');
      expect(await h.events(runId, 'send.settled')).toHaveLength(1);
    });

    it('killed after signing and before the journal: the step runs again with the same send id, the same nonce, and pays once', async () => {
      const h = new SendHarness({ workflows: [payouts()] });
      const real = h.journal.append.bind(h.journal);
      let dead = true;
      h.journal.append = async (events) => {
        if (dead && events.some((e) => e.type === 'send.queued')) throw new Error('process killed');
        return real(events);
      };
      const { runId } = await h.start.execute({ workflow: 'payouts', trigger: { kind: 'manual', summary: 'test', payload: { to: TO, amount: '14' } } });
      await expect(h.tick()).rejects.toThrow('process killed');
      dead = false;
      h.clock.advance(TTL + 1);
      await h.tick('engine-b');
      expect(await h.status(runId)).toBe('succeeded');
      expect(h.chain.transactions().map((t) => [t.nonce, t.valueWei])).toEqual([[0, 14n]]);
      expect((await h.events(runId, 'step.started')).map((e) => e.attempt)).toEqual([1, 2]);
      // No gap: the next send takes nonce 1.
      const next = await h.run('payouts', { to: TO, amount: '15' });
      expect(await h.status(next)).toBe('succeeded');
      expect(h.chain.transactions().map((t) => t.nonce).sort()).toEqual([0, 1]);
    });
  });

  it('wait_for submitted: the step ends after the broadcast, the run goes on, and the watcher settles the send with its ledger entry', async () => {
    const h = new SendHarness({ workflows: [payouts({ wait_for: 'submitted' })] });
    h.chain.holdMining();
    const runId = await h.run('payouts', { to: TO, amount: '21' });
    expect(await h.status(runId)).toBe('succeeded');
    expect((await h.events(runId, 'step.finished'))[0]!.output).toMatchObject({ status: 'submitted', nonce: 0 });
    expect(await h.store.count()).toBe(1);
    h.chain.mine();
    h.clock.advance(1_000);
    expect(await h.watch.drain('engine-a')).toBe(1);
    expect(await h.events(runId, 'send.settled')).toEqual([expect.objectContaining({ outcome: 'confirmed' })]);
    expect(h.spend.all()).toEqual([expect.objectContaining({ runId, valueWei: 21n })]);
    expect(await h.store.count()).toBe(0);
  });

  it('a run cancelled while its send is in flight: the watcher still settles the send and records its ledger entry', async () => {
    const h = new SendHarness({ workflows: [payouts()] });
    h.chain.holdMining();
    const runId = await h.run('payouts', { to: TO, amount: '22' });
    const cancel = new CancelRun(h.journal, h.journal, h.journal, h.engineStore, h.clock);
    await cancel.execute(runId, 'ops-oncall');
    expect(await h.status(runId)).toBe('cancelled');
    h.chain.mine();
    // Nobody waits for the send any more: once its watch is due (the run's look is 2 minutes old), the watcher takes it.
    h.clock.advance(60_000);
    expect(await h.watch.drain('engine-a')).toBe(0);
    h.clock.advance(61_000);
    expect(await h.watch.drain('engine-a')).toBe(1);
    expect(await h.events(runId, 'send.settled')).toEqual([expect.objectContaining({ outcome: 'confirmed' })]);
    expect(h.spend.all()).toEqual([expect.objectContaining({ runId, valueWei: 22n })]);
  });

  it('a test session simulates its sends and never broadcasts them: they stay queued', async () => {
    const h = new SendHarness({ workflows: [payouts()] });
    const runId = await h.run('payouts', { to: TO, amount: '1' }, 'test');
    expect(await h.status(runId)).toBe('succeeded');
    expect(types(await h.events(runId)).filter((t) => t.startsWith('send') || t === 'step.simulated')).toEqual(['step.simulated', 'send.queued']);
    expect((await h.journal.sendsOfRuns([runId]))[0]).toMatchObject({ status: 'queued', session: 'test' });
    expect(h.chain.broadcasts).toBe(0);
    expect(await h.store.synced(LANE)).toBe(false);
  });

  it('200 sends of one relayer at once take consecutive nonces and all land', async () => {
    const h = new SendHarness({ workflows: [payouts()] });
    const started = await Promise.all(Array.from({ length: 200 }, (_, i) => h.start.execute({ workflow: 'payouts', trigger: { kind: 'manual', summary: 'test', payload: { to: TO, amount: String(i + 1) } } })));
    const claims = await h.engineStore.claimDue('engine-a', h.clock.now(), h.clock.now() + TTL, 500);
    await Promise.all(claims.map((c) => h.drive.execute(c, 'engine-a')));
    for (const { runId } of started) expect(await h.status(runId)).toBe('succeeded');
    expect(h.chain.transactions().map((t) => t.nonce).sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });
});

describe('read steps', () => {
  const TOKEN = '0x00000000000000000000000000000000000070c0';

  it('decodes a view call\'s result into output.result, a uint256 as a decimal string', async () => {
    const h = new SendHarness({ workflows: [aWorkflow({ name: 'peek', steps: [aRead('bal', TOKEN, 'balanceOf(address) returns (uint256)', ['${{ trigger.payload.who }}'])] })] });
    const big = 2n ** 200n + 1n;
    h.chain.answerCalls(TOKEN, (data) => (data.startsWith('0x70a08231') ? `0x${big.toString(16).padStart(64, '0')}` : '0x'));
    const runId = await h.run('peek', { who: TO });
    expect(await h.status(runId)).toBe('succeeded');
    expect((await h.events(runId, 'step.finished'))[0]!.output).toEqual({ result: big.toString() });
  });

  it('a reverting view call fails the step reverted, without retries', async () => {
    const h = new SendHarness({ workflows: [aWorkflow({ name: 'peek', steps: [aRead('bal', TOKEN, 'balanceOf(address) returns (uint256)', [TO])] })] });
    h.chain.revertCallsTo(TOKEN);
    const runId = await h.run('peek');
    expect(await h.status(runId)).toBe('failed');
    expect((await h.journal.get(runId))!.errorKind).toBe('reverted');
    expect(await h.events(runId, 'step.started')).toHaveLength(1);
  });
});
