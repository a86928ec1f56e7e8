import type { ChainflowConfig } from '../../src/application/config';
import type { Broadcast, BroadcastRequest, ChainSender, ChainTarget } from '../../src/application/ports/chain';
import { BudgetGuard } from '../../src/application/spend/budget-guard.use-case';
import { SendTransaction, type SendRequest } from '../../src/application/spend/send-transaction.use-case';
import type { JournalEvent, Receipt } from '../../src/domain/journal/journal-event';
import { Redactor } from '../../src/domain/redactor';
import { SecretMissingError } from '../../src/domain/errors';
import { anEntry } from '../contract/spend.contract';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { InMemoryBudgetReservations, InMemorySpendLedger } from '../fakes/in-memory-spend';
import { aTxHash, HOUR, iso, T0 } from '../mothers/journal-events';

const RPC_URL = 'https://sepolia.rpc.example/v3/secret-project-key-123';
const SIGNER = `0x${'ab'.repeat(32)}`;
const SENT_HASH = aTxHash('broadcast-1');
const TO = '0x000000000000000000000000000000000000beef';

const config: ChainflowConfig = {
  server: { host: '127.0.0.1', port: 8080, healthPublic: true, metricsPublic: false },
  storage: { url: 'sqlite::memory:' },
  networks: new Map([['sepolia', { name: 'sepolia', chainId: 11155111, nativeSymbol: 'ETH', rpc: [RPC_URL] }]]),
  relayers: new Map([['ops', { name: 'ops', network: 'sepolia', signer: SIGNER }]]),
  budgets: new Map([['daily_gas', { name: 'daily_gas', windowMs: 24 * HOUR, maxGasSpendWei: 1_000_000n, scope: { relayers: ['ops'] } }]]),
  workflows: new Map([['payouts', { name: 'payouts', budgets: ['daily_gas'], definition: {} }]]),
  secretValues: [RPC_URL, SIGNER],
};

/** A chain sender the test steers: what the broadcast does and which receipt arrives. */
class StubSender implements ChainSender {
  readonly broadcasts: BroadcastRequest[] = [];
  readonly waits: { target: ChainTarget; txHash: string }[] = [];
  receipt: Receipt | null = { status: 1, blockNumber: '7', gasUsed: '21000', effectiveGasPrice: '0x3b9aca00', l1Fee: '5' };
  failure: Error | undefined;

  async broadcast(request: BroadcastRequest): Promise<Broadcast> {
    this.broadcasts.push(request);
    if (this.failure) throw this.failure;
    return { txHash: SENT_HASH, from: '0x00000000000000000000000000000000000000aa', nonce: 3 };
  }

  async waitForReceipt(target: ChainTarget, txHash: string): Promise<Receipt | null> {
    this.waits.push({ target, txHash });
    return this.receipt;
  }

  async balance(): Promise<bigint> {
    return 0n;
  }
}

describe('SendTransaction', () => {
  let spend: InMemorySpendLedger;
  let journal: InMemoryJournal;
  let sender: StubSender;
  let clock: FixedClock;
  let send: SendTransaction;

  beforeEach(async () => {
    spend = new InMemorySpendLedger();
    journal = new InMemoryJournal({ spend });
    sender = new StubSender();
    clock = new FixedClock(T0);
    const guard = new BudgetGuard(config, spend, InMemoryBudgetReservations.over(journal), journal, clock);
    send = new SendTransaction(config, guard, sender, journal, journal, clock, new Redactor(config.secretValues));
    await journal.append([
      { type: 'run.started', at: iso(T0 - HOUR), run_id: 'r1', workflow: 'payouts', session: 'live', trigger: { kind: 'cron' } },
      { type: 'step.started', at: iso(T0 - HOUR), run_id: 'r1', step_run_id: 'r1.pay', step_id: 'pay', step_type: 'send', attempt: 1 },
    ]);
  });

  const request: SendRequest = { runId: 'r1', stepRunId: 'r1.pay', sendId: 'r1.send', relayer: 'ops', to: TO, valueWei: 777n, idempotencyKey: 'r1:pay' };
  const types = async (): Promise<string[]> => (await journal.stream('r1')).map((e) => e.type);
  const ofType = async <T extends JournalEvent['type']>(type: T): Promise<Extract<JournalEvent, { type: T }>[]> =>
    (await journal.stream('r1')).filter((e): e is Extract<JournalEvent, { type: T }> => e.type === type);

  describe('when the budget refuses', () => {
    beforeEach(async () => {
      await spend.append([anEntry({ stepRunId: 'earlier.pay', recordedAt: T0 - HOUR, gasSpendWei: 1_000_000n })]);
    });

    it('broadcasts nothing and fails the step with budget_exceeded', async () => {
      const result = await send.execute(request);
      expect(result).toMatchObject({ status: 'refused', error: { kind: 'budget_exceeded' } });
      expect(sender.broadcasts).toEqual([]);
      expect(sender.waits).toEqual([]);
      const [finished] = await ofType('step.finished');
      expect(finished).toMatchObject({ step_run_id: 'r1.pay', status: 'failed', error: { kind: 'budget_exceeded' } });
      expect((finished!.error as { message: string }).message).toContain('daily_gas');
    });

    it('journals the check and no send', async () => {
      await send.execute(request);
      expect(await types()).toEqual(['run.started', 'step.started', 'budget.checked', 'step.finished']);
      expect(await ofType('budget.checked')).toEqual([expect.objectContaining({ budget: 'daily_gas', spent_wei: '1000000', cap_wei: '1000000', allowed: false })]);
      expect(await journal.sendsOfRuns(['r1'])).toEqual([]);
      expect(spend.all()).toHaveLength(1);
      expect((await journal.get('r1'))!.errorKind).toBe('budget_exceeded');
    });
  });

  describe('when the budget allows', () => {
    it('journals queued, submitted and settled, and records one ledger entry from the receipt', async () => {
      await spend.append([anEntry({ stepRunId: 'earlier.pay', recordedAt: T0 - HOUR, gasSpendWei: 999_999n })]);
      const result = await send.execute(request);
      expect(result).toEqual({ status: 'confirmed', txHash: SENT_HASH, receipt: sender.receipt });
      expect(sender.broadcasts).toEqual([expect.objectContaining({ signer: SIGNER, to: TO, valueWei: 777n, target: { network: 'sepolia', chainId: 11155111, rpc: [RPC_URL] } })]);
      expect(await types()).toEqual(['run.started', 'step.started', 'budget.checked', 'send.queued', 'send.submitted', 'send.settled', 'step.finished']);
      expect(await ofType('budget.checked')).toEqual([expect.objectContaining({ allowed: true, spent_wei: '999999' })]);
      expect(await ofType('send.queued')).toEqual([expect.objectContaining({ send_id: 'r1.send', relayer: 'ops', network: 'sepolia', chain_id: 11155111, value_wei: '777', to: TO })]);
      expect(await ofType('send.submitted')).toEqual([expect.objectContaining({ send_id: 'r1.send', tx_hash: SENT_HASH, nonce: 3 })]);
      expect(await ofType('send.settled')).toEqual([expect.objectContaining({ send_id: 'r1.send', outcome: 'confirmed', tx_hash: SENT_HASH })]);
      expect(await ofType('step.finished')).toEqual([expect.objectContaining({ status: 'succeeded' })]);
      const recorded = spend.all().filter((e) => e.stepRunId === 'r1.pay');
      expect(recorded).toEqual([{
        recordedAt: T0, workflow: 'payouts', runId: 'r1', stepRunId: 'r1.pay', relayer: 'ops', network: 'sepolia', chainId: 11155111,
        txHash: SENT_HASH, gasUsed: 21000n, effectiveGasPrice: 1_000_000_000n, gasSpendWei: 21000n * 1_000_000_000n + 5n, valueWei: 777n, reverted: false,
      }]);
      expect((await journal.sendsOfRuns(['r1']))[0]).toMatchObject({ status: 'settled', outcome: 'confirmed', txHash: SENT_HASH });
    });

    it('settles a reverted receipt as reverted, fails the step, and records its gas with value 0', async () => {
      sender.receipt = { status: 0, gasUsed: '30000', gasPrice: '2' };
      const result = await send.execute(request);
      expect(result).toMatchObject({ status: 'reverted', txHash: SENT_HASH });
      expect(await ofType('send.settled')).toEqual([expect.objectContaining({ outcome: 'reverted' })]);
      expect(await ofType('step.finished')).toEqual([expect.objectContaining({ status: 'failed', error: expect.objectContaining({ kind: 'reverted' }) })]);
      expect(spend.all()).toEqual([expect.objectContaining({ txHash: SENT_HASH, reverted: true, valueWei: 0n, gasSpendWei: 60000n })]);
    });

    it('settles a failed broadcast as dropped, with no ledger entry and nothing secret in the error', async () => {
      sender.failure = new Error(`request to ${RPC_URL} failed: insufficient funds for gas * price + value`);
      const result = await send.execute(request);
      expect(result).toMatchObject({ status: 'failed', error: { kind: 'broadcast_failed' } });
      expect(JSON.stringify(result)).not.toContain(RPC_URL);
      expect(await types()).toEqual(['run.started', 'step.started', 'budget.checked', 'send.queued', 'send.settled', 'step.finished']);
      expect(await ofType('send.settled')).toEqual([expect.objectContaining({ outcome: 'dropped' })]);
      const [finished] = await ofType('step.finished');
      expect(finished).toMatchObject({ status: 'failed', error: { kind: 'broadcast_failed' } });
      expect(JSON.stringify(await journal.stream('r1'))).not.toContain(RPC_URL);
      expect(spend.all()).toEqual([]);
      expect(await spend.counts()).toEqual({ pending: 0, gaps: 0 });
      expect(sender.waits).toEqual([]);
    });

    it('never records a broadcast send as dropped when journaling its submission fails', async () => {
      const failing = Object.create(journal) as InMemoryJournal;
      failing.append = async (events) => {
        if (events.some((e) => e.type === 'send.submitted')) throw new Error('database is locked');
        return journal.append(events);
      };
      const guard = new BudgetGuard(config, spend, InMemoryBudgetReservations.over(journal), failing, clock);
      const flaky = new SendTransaction(config, guard, sender, failing, journal, clock, new Redactor(config.secretValues));
      await expect(flaky.execute(request)).rejects.toThrow('database is locked');
      expect(sender.broadcasts).toHaveLength(1);
      expect(await ofType('send.settled')).toEqual([]);
      expect((await journal.sendsOfRuns(['r1']))[0]).toMatchObject({ status: 'queued', outcome: null });
    });

    it('writes no entry while no receipt has arrived', async () => {
      sender.receipt = null;
      expect(await send.execute(request)).toEqual({ status: 'submitted', txHash: SENT_HASH });
      expect(await types()).toEqual(['run.started', 'step.started', 'budget.checked', 'send.queued', 'send.submitted']);
      expect(spend.all()).toEqual([]);
      expect(await spend.counts()).toEqual({ pending: 0, gaps: 0 });
    });

    it('leaves a pending receipt read when the receipt has no gas numbers', async () => {
      sender.receipt = { status: 1, blockNumber: '9' };
      expect(await send.execute(request)).toMatchObject({ status: 'confirmed' });
      expect(spend.all()).toEqual([]);
      expect(await spend.pending(10)).toEqual([expect.objectContaining({ stepRunId: 'r1.pay', txHash: SENT_HASH, valueWei: 777n, recordedAt: T0 })]);
    });
  });

  it('a relayer whose signer variable is unset: the send names the setting and the variable, and broadcasts nothing', async () => {
    const unset: ChainflowConfig = {
      ...config,
      relayers: new Map([['ops', { name: 'ops', network: 'sepolia' }]]),
      unsetSecrets: [{ at: 'relayers.ops.signer', variable: 'OPS_SIGNER_KEY', empty: false }],
    };
    const guard = new BudgetGuard(unset, spend, InMemoryBudgetReservations.over(journal), journal, clock);
    const unsigned = new SendTransaction(unset, guard, sender, journal, journal, clock, new Redactor([]));
    await expect(unsigned.execute(request)).rejects.toThrow(
      new SecretMissingError([{ at: 'relayers.ops.signer', variable: 'OPS_SIGNER_KEY', empty: false }], 'a send from relayer ops'),
    );
    expect(sender.broadcasts).toEqual([]);
  });
});
