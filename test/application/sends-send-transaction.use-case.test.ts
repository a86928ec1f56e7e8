/**
 * SendTransaction (a send outside a workflow's steps, e.g. a top-up) on the send path, over fakes of every port:
 * the budget check before anything, the nonce from storage, the journal before the broadcast, the settle and its
 * ledger entry.
 */
import type { ChainflowConfig } from '../../src/application/config';
import { Relayers } from '../../src/application/sends/relayers';
import type { SendRequest } from '../../src/application/sends/send-transaction.use-case';
import { SecretMissingError } from '../../src/domain/errors';
import type { JournalEvent } from '../../src/domain/journal/journal-event';
import { anEntry } from '../contract/spend.contract';
import { HOUR, iso, T0 } from '../mothers/journal-events';
import { RPC_URL, SendHarness, TO } from '../support/send-harness';

describe('SendTransaction', () => {
  let h: SendHarness;

  beforeEach(async () => {
    h = new SendHarness({ gasCapWei: 1_000_000n * 10n ** 9n, l1FeeWei: 5n });
    await h.journal.append([
      { type: 'run.started', at: iso(T0 - HOUR), run_id: 'r1', workflow: 'payouts', session: 'live', trigger: { kind: 'cron' } },
      { type: 'step.started', at: iso(T0 - HOUR), run_id: 'r1', step_run_id: 'r1.pay', step_id: 'pay', step_type: 'send', attempt: 1 },
    ]);
  });

  const request: SendRequest = { runId: 'r1', stepRunId: 'r1.pay', sendId: 'r1.send', relayer: 'ops', to: TO, valueWei: 777n, idempotencyKey: 'r1:pay', waitMs: 0 };
  const types = async (): Promise<string[]> => (await h.journal.stream('r1')).map((e) => e.type);
  const ofType = async <T extends JournalEvent['type']>(type: T): Promise<Extract<JournalEvent, { type: T }>[]> => h.events('r1', type);

  describe('when the budget refuses', () => {
    beforeEach(async () => {
      await h.spend.append([anEntry({ stepRunId: 'earlier.pay', recordedAt: T0 - HOUR, gasSpendWei: 1_000_000n * 10n ** 9n })]);
    });

    it('broadcasts nothing, takes no nonce, and fails the step with budget_exceeded', async () => {
      const result = await h.sendTransaction.execute(request);
      expect(result).toMatchObject({ status: 'refused', error: { kind: 'budget_exceeded' } });
      expect(h.chain.broadcasts).toBe(0);
      expect(await h.store.synced({ relayer: 'ops', network: 'sepolia' })).toBe(false);
      const [finished] = await ofType('step.finished');
      expect(finished).toMatchObject({ step_run_id: 'r1.pay', status: 'failed', error: { kind: 'budget_exceeded' } });
      expect(finished!.error!.message).toContain('gas_cap');
      expect(h.metrics.refusals).toBe(1);
    });

    it('journals the check and no send', async () => {
      await h.sendTransaction.execute(request);
      expect(await types()).toEqual(['run.started', 'step.started', 'budget.checked', 'step.finished']);
      expect(await ofType('budget.checked')).toEqual([expect.objectContaining({ budget: 'gas_cap', allowed: false })]);
      expect(await h.journal.sendsOfRuns(['r1'])).toEqual([]);
      expect((await h.journal.get('r1'))!.errorKind).toBe('budget_exceeded');
    });
  });

  describe('when the budget allows', () => {
    it('journals queued and submitted before the broadcast, then settled, and records one ledger entry from the receipt', async () => {
      const result = await h.sendTransaction.execute(request);
      expect(result).toMatchObject({ status: 'confirmed' });
      const txHash = (result as { txHash: string }).txHash;
      expect(h.chain.transactions()).toEqual([expect.objectContaining({ hash: txHash, to: TO, valueWei: 777n, nonce: 0 })]);
      expect(await types()).toEqual(['run.started', 'step.started', 'budget.checked', 'send.queued', 'send.submitted', 'send.settled', 'step.finished']);
      expect(await ofType('send.queued')).toEqual([expect.objectContaining({ send_id: 'r1.send', relayer: 'ops', network: 'sepolia', chain_id: 11155111, value_wei: '777', to: TO })]);
      expect(await ofType('send.submitted')).toEqual([expect.objectContaining({ send_id: 'r1.send', tx_hash: txHash, nonce: 0 })]);
      expect(await ofType('send.settled')).toEqual([expect.objectContaining({ send_id: 'r1.send', outcome: 'confirmed', tx_hash: txHash })]);
      expect(h.spend.all().filter((e) => e.stepRunId === 'r1.pay')).toEqual([{
        recordedAt: T0, workflow: 'payouts', runId: 'r1', stepRunId: 'r1.pay', relayer: 'ops', network: 'sepolia', chainId: 11155111,
        txHash, gasUsed: 21000n, effectiveGasPrice: 2_000_000_000n, gasSpendWei: 21000n * 2_000_000_000n + 5n, valueWei: 777n, reverted: false,
        // the receipt's block (the fake chain mines one block per transaction): a reorg that removes it reopens the send
        blockNumber: 1n,
      }]);
      expect(await h.store.count()).toBe(0);
    });

    it('settles a reverted receipt as reverted, fails the step, and records its gas with value 0', async () => {
      h.chain.revertCallsTo(TO);
      const result = await h.sendTransaction.execute({ ...request, gasLimit: 50_000n });
      expect(result).toMatchObject({ status: 'reverted' });
      expect(await ofType('send.settled')).toEqual([expect.objectContaining({ outcome: 'reverted' })]);
      expect(await ofType('step.finished')).toEqual([expect.objectContaining({ status: 'failed', error: expect.objectContaining({ kind: 'reverted' }) })]);
      expect(h.spend.all()).toEqual([expect.objectContaining({ reverted: true, valueWei: 0n, gasSpendWei: 21006n * 2_000_000_000n + 5n })]);
    });

    it('settles a refused broadcast as dropped and gives its nonce back, with nothing secret in the error', async () => {
      const poor = new SendHarness();
      poor.chain.setBalance('0x00000000000000000000000000000000000000aa', 1000n);
      await poor.journal.append(await h.journal.stream('r1'));
      const result = await poor.sendTransaction.execute({ ...request, gasLimit: 21_000n });
      expect(result).toMatchObject({ status: 'failed', error: { kind: 'broadcast_failed' } });
      expect(JSON.stringify(result)).not.toContain(RPC_URL);
      expect((await poor.journal.stream('r1')).map((e) => e.type)).toEqual(['run.started', 'step.started', 'send.queued', 'send.submitted', 'send.settled', 'step.finished']);
      expect(await poor.events('r1', 'send.settled')).toEqual([expect.objectContaining({ outcome: 'dropped' })]);
      expect(poor.spend.all()).toEqual([]);
      // The nonce was never used: the next send takes it.
      expect(await poor.store.reserve({ relayer: 'ops', network: 'sepolia' }, 'next', T0, 60_000)).toBe(0);
    });

    it('never broadcasts a send whose submission could not be journaled', async () => {
      const failing = Object.create(h.journal) as typeof h.journal;
      failing.append = async (events) => {
        if (events.some((e) => e.type === 'send.submitted')) throw new Error('database is locked');
        return h.journal.append(events);
      };
      const { SubmitSend } = await import('../../src/application/sends/submit-send.use-case');
      const { BudgetGuard } = await import('../../src/application/spend/budget-guard.use-case');
      const { InMemoryBudgetReservations } = await import('../fakes/in-memory-spend');
      const { Redactor } = await import('../../src/domain/redactor');
      const guard = new BudgetGuard(h.config, h.spend, InMemoryBudgetReservations.over(h.journal), failing, h.clock);
      const submit = new SubmitSend(h.relayers, h.chain, h.chain, h.store, h.store, guard, failing, h.metrics, h.clock, new Redactor([]));
      await expect(submit.execute({
        runId: 'r1', stepRunId: 'r1.pay', sendId: 'r1.send', workflow: 'payouts', session: 'live', relayer: 'ops', to: TO, valueWei: 1n, data: '0x',
        idempotencyKey: 'k', simulate: true, detached: false,
      })).rejects.toThrow('database is locked');
      expect(h.chain.broadcasts).toBe(0);
      expect(await h.journal.sendsOfRuns(['r1'])).toEqual([]);
    });

    it('writes no entry while no receipt has arrived: the send stays submitted and watched', async () => {
      h.chain.holdMining();
      const result = await h.sendTransaction.execute(request);
      expect(result).toMatchObject({ status: 'submitted' });
      expect(await types()).toEqual(['run.started', 'step.started', 'budget.checked', 'send.queued', 'send.submitted']);
      expect(h.spend.all()).toEqual([]);
      expect(await h.store.count()).toBe(1);
    });

    it('a nonce error from the node resyncs the lane and the send is signed again at once, at a nonce the chain has not used', async () => {
      h.chain.failNextBroadcasts(1);
      const result = await h.sendTransaction.execute(request);
      expect(result).toMatchObject({ status: 'confirmed' });
      expect(h.metrics.resyncs).toBe(1);
      const again = await h.sendTransaction.execute({ ...request, sendId: 'r1.send2' });
      expect(again).toMatchObject({ status: 'confirmed' });
      expect(h.chain.transactions().map((t) => t.nonce)).toEqual([0, 1]);
    });

    it('nonce errors on every try: after a bounded number of fresh nonces the send fails broadcast_failed and holds none', async () => {
      h.chain.failNextBroadcasts(3);
      const result = await h.sendTransaction.execute(request);
      expect(result).toMatchObject({ status: 'failed', error: { kind: 'broadcast_failed' } });
      expect(h.metrics.resyncs).toBe(3);
      const again = await h.sendTransaction.execute({ ...request, sendId: 'r1.send2' });
      expect(again).toMatchObject({ status: 'confirmed' });
      expect(h.chain.transactions().map((t) => t.nonce)).toEqual([0]);
    });
  });

  it('a relayer whose signer variable is unset: the send names the setting and the variable, and broadcasts nothing', async () => {
    const unset: ChainflowConfig = {
      ...h.config,
      relayers: new Map([['ops', { name: 'ops', network: 'sepolia' }]]),
      unsetSecrets: [{ at: 'relayers.ops.signer', variable: 'OPS_SIGNER_KEY', empty: false }],
    };
    expect(() => new Relayers(unset, h.chain).get('ops')).toThrow(
      new SecretMissingError([{ at: 'relayers.ops.signer', variable: 'OPS_SIGNER_KEY', empty: false }], 'a send from relayer ops'),
    );
    expect(h.chain.broadcasts).toBe(0);
  });
});
