/**
 * Sends on a relayer lane under the faults of CONTRACT 8.7, on fakes of every port: a nonce used from the relayer's
 * key outside chainflow never jams the lane (also after a restart); a receipt that lags the nonce is read again, not
 * taken for a replacement; a send stuck under max_fee_per_gas waits at its fee and its timeout still ends the step;
 * and the provider requests of sends in flight do not grow with their number.
 */
import { ChainRejectedError, type ChainTarget } from '../../src/application/ports/chain';
import { aSend, aWorkflow } from '../mothers/workflows';
import { RELAYER_ADDRESS, SendHarness, SIGNER, TO } from '../support/send-harness';

const SEPOLIA: ChainTarget = { network: 'sepolia', chainId: 11155111, rpc: ['http://x.invalid'] };

function payouts(fields: Record<string, unknown> = {}, overrides: Parameters<typeof aSend>[2] = {}) {
  return aWorkflow({ name: 'payouts', steps: [aSend('pay', { to: '${{ trigger.payload.to }}', value: '${{ trigger.payload.amount }}', ...fields }, overrides)] });
}

/** A transfer signed with the relayer's own key by someone else (a manual rescue, a second journal). */
async function sendOutside(h: SendHarness, nonce: number): Promise<void> {
  const tx = await h.chain.sign({ chainId: 11155111, signer: SIGNER, nonce, to: TO, valueWei: 1n, data: '0x', gasLimit: 21_000n, fees: { kind: 'legacy', gasPrice: 5_000_000_000n } });
  await h.chain.broadcast(SEPOLIA, tx);
}

/** Counts the chain calls made from now on, per method. */
function countCalls(h: SendHarness): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const method of ['nonce', 'receipt', 'transactionKnown', 'blockNumber', 'fees', 'broadcast', 'waitForReceipt'] as const) {
    const real = (h.chain[method] as (...args: unknown[]) => Promise<unknown>).bind(h.chain);
    (h.chain as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      counts[method] = (counts[method] ?? 0) + 1;
      return real(...args);
    };
  }
  return counts;
}

describe('sends on a relayer lane', () => {
  it('a nonce used from the relayer\'s key outside chainflow: the send is signed again at once at a fresh nonce, and the lane never jams, also after a restart', async () => {
    const h = new SendHarness({ workflows: [payouts()] });
    expect(await h.status(await h.run('payouts', { to: TO, amount: '1' }))).toBe('succeeded');
    await sendOutside(h, 1);
    const second = await h.run('payouts', { to: TO, amount: '2' });
    expect(await h.status(second)).toBe('succeeded');
    const submitted = await h.events(second, 'send.submitted');
    expect(submitted.map((s) => s.nonce)).toEqual([1, 2]);
    expect(await h.events(second, 'send.settled')).toEqual([expect.objectContaining({ outcome: 'confirmed', tx_hash: submitted[1]!.tx_hash })]);
    expect(h.metrics.resyncs).toBe(1);
    expect(h.logger.named('nonce lane resynced with the chain')).toEqual([{ level: 'warn', message: 'nonce lane resynced with the chain', fields: { relayer: 'ops', network: 'sepolia', chain_pending_nonce: 2 } }]);
    expect(h.spend.all().map((e) => e.valueWei)).toEqual([1n, 2n]);
    // The nonce the chain used is not handed out again: the next send takes the next one, first time.
    const third = await h.run('payouts', { to: TO, amount: '3' });
    expect((await h.events(third, 'send.submitted')).map((s) => s.nonce)).toEqual([3]);
    // Twice more from outside, then a restarted process (its lane known to storage as synced) sends again.
    await sendOutside(h, 4);
    await sendOutside(h, 5);
    h.restart();
    for (const amount of ['4', '5']) expect(await h.status(await h.run('payouts', { to: TO, amount }))).toBe('succeeded');
    expect(h.metrics.outcomes.filter((o) => o !== 'confirmed')).toEqual([]);
    expect(h.chain.transactions().map((t) => t.nonce).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('killed after the send was signed again at a fresh nonce and before that was journaled: the next look journals and broadcasts it, paid once, no gap', async () => {
    const h = new SendHarness({ workflows: [payouts()] });
    expect(await h.status(await h.run('payouts', { to: TO, amount: '1' }))).toBe('succeeded');
    await sendOutside(h, 1);
    const real = h.journal.append.bind(h.journal);
    h.journal.append = async (events) => {
      if (events.some((e) => e.type === 'send.submitted' && e.nonce === 2)) throw new Error('process killed');
      return real(events);
    };
    const { runId } = await h.start.execute({ workflow: 'payouts', trigger: { kind: 'manual', summary: 'test', payload: { to: TO, amount: '2' } } });
    await expect(h.tick()).rejects.toThrow('process killed');
    h.journal.append = real;
    h.restart();
    h.clock.advance(15_001);
    await h.tick('engine-b');
    // That look journaled and broadcast it; the next one finds it landed.
    h.clock.advance(1_000);
    await h.tick('engine-b');
    expect(await h.status(runId)).toBe('succeeded');
    expect((await h.events(runId, 'send.submitted')).map((s) => s.nonce)).toEqual([1, 2]);
    expect(h.spend.all().map((e) => e.valueWei)).toEqual([1n, 2n]);
    expect(await h.status(await h.run('payouts', { to: TO, amount: '3' }))).toBe('succeeded');
    expect(h.chain.transactions().map((t) => t.nonce).sort((a, b) => a - b)).toEqual([0, 1, 2, 3]);
  });

  it('a nonce freed by a failed broadcast behind a later one is a hole: none taking it within replace_after, a zero-value self-transfer fills it and the later send lands', async () => {
    const h = new SendHarness({ workflows: [payouts({ wait_for: 'submitted' })], network: { replaceAfterMs: 30_000 } });
    h.chain.holdMining();
    const real = h.chain.broadcast.bind(h.chain);
    // Three sends at once; the node refuses nonce 1 a moment after the others took 0 and 2.
    h.chain.broadcast = async (target, signed) => {
      if (signed.nonce !== 1) return real(target, signed);
      await new Promise((r) => setTimeout(r, 50));
      throw new ChainRejectedError('sepolia', 'insufficient funds for gas * price + value', 'insufficient_funds');
    };
    const runs: string[] = [];
    for (const amount of ['1', '2', '3']) {
      runs.push((await h.start.execute({ workflow: 'payouts', trigger: { kind: 'manual', summary: 'test', payload: { to: TO, amount } } })).runId);
    }
    const claims = await h.engineStore.claimDue('engine-a', h.clock.now(), h.clock.now() + 15_000, 10);
    await Promise.all(claims.map((c) => h.drive.execute(c, 'engine-a')));
    const refused: string[] = [];
    const landing: string[] = [];
    for (const runId of runs) ((await h.journal.get(runId))!.errorKind === 'broadcast_failed' ? refused : landing).push(runId);
    expect(refused).toHaveLength(1);
    const [first, third] = landing as [string, string];
    expect([...(await h.events(first, 'send.submitted')), ...(await h.events(third, 'send.submitted'))].map((s) => s.nonce).sort()).toEqual([0, 2]);
    expect(await h.store.holes({ relayer: 'ops', network: 'sepolia' })).toEqual([1]);
    h.chain.broadcast = real;
    h.chain.mine();
    await h.watch.drain('engine-a');
    // Nonce 2 waits behind the hole; within replace_after the hole is left for a send to take.
    h.clock.advance(29_000);
    await h.watch.drain('engine-a');
    expect(h.chain.transactions().filter((t) => t.to === RELAYER_ADDRESS)).toEqual([]);
    h.clock.advance(2_000);
    await h.watch.drain('engine-a');
    expect(h.chain.transactions().filter((t) => t.to === RELAYER_ADDRESS)).toEqual([expect.objectContaining({ nonce: 1, valueWei: 0n })]);
    expect(await h.store.holes({ relayer: 'ops', network: 'sepolia' })).toEqual([]);
    h.chain.mine();
    h.clock.advance(1_000);
    await h.watch.drain('engine-a');
    for (const runId of [first, third]) expect(await h.events(runId, 'send.settled')).toEqual([expect.objectContaining({ outcome: 'confirmed' })]);
    // Not a send of any run: no journal event, no ledger entry beyond the two payouts.
    expect(h.spend.all()).toHaveLength(2);
  });

  it('a receipt that lags the nonce: the landed send is read again, not settled replaced, and settles confirmed with its ledger entry', async () => {
    const h = new SendHarness({ workflows: [payouts()] });
    h.chain.holdMining();
    const runId = await h.run('payouts', { to: TO, amount: '8' });
    h.chain.mine();
    // The provider knows the nonce moved but answers no receipt yet.
    const realReceipt = h.chain.receipt.bind(h.chain);
    let lagging = true;
    h.chain.receipt = async (target, hash) => (lagging ? null : realReceipt(target, hash));
    for (let look = 0; look < 4; look++) {
      h.clock.advance(1_000);
      await h.tick();
    }
    expect(await h.events(runId, 'send.settled')).toEqual([]);
    expect(await h.status(runId)).toBe('waiting');
    lagging = false;
    h.clock.advance(1_000);
    await h.tick();
    expect(await h.status(runId)).toBe('succeeded');
    expect(await h.events(runId, 'send.settled')).toEqual([expect.objectContaining({ outcome: 'confirmed' })]);
    expect(h.spend.all()).toEqual([expect.objectContaining({ valueWei: 8n })]);
  });

  it('stuck under max_fee_per_gas: no new hash and no rebroadcast loop; the timeout fails the step tx_expired, and a later landing still settles it with its ledger entry', async () => {
    const h = new SendHarness({ workflows: [payouts({}, { timeoutMs: 120_000 })], network: { replaceAfterMs: 30_000, maxFeePerGasWei: 3_000_000_000n } });
    h.chain.holdMining();
    const runId = await h.run('payouts', { to: TO, amount: '6' });
    const counts = countCalls(h);
    for (let t = 0; t < 119; t++) {
      h.clock.advance(1_000);
      await h.tick();
    }
    // Two minutes of looks: the same single transaction, at most one check of its bytes per replace_after.
    expect(await h.events(runId, 'send.submitted')).toHaveLength(1);
    expect(h.metrics.replacements).toBe(0);
    expect(counts.broadcast ?? 0).toBe(0);
    expect(counts.transactionKnown ?? 0).toBeLessThanOrEqual(4);
    expect(counts.fees ?? 0).toBeLessThanOrEqual(4);
    h.clock.advance(2_000);
    await h.tick();
    // The cancel cannot replace it under the cap either: the step fails, the send stays in flight, nothing settled.
    expect(await h.status(runId)).toBe('failed');
    expect((await h.journal.get(runId))!.errorKind).toBe('tx_expired');
    expect(await h.events(runId, 'send.submitted')).toHaveLength(1);
    expect(await h.events(runId, 'send.settled')).toEqual([]);
    expect(h.metrics.cancels).toBe(0);
    expect(await h.store.count()).toBe(1);
    // The base fee falls, it lands: the watcher settles it and its ledger entry is written.
    h.chain.mine();
    h.clock.advance(5_000);
    await h.watch.drain('engine-a');
    expect(await h.events(runId, 'send.settled')).toEqual([expect.objectContaining({ outcome: 'confirmed' })]);
    expect(h.spend.all()).toEqual([expect.objectContaining({ valueWei: 6n, workflow: 'payouts' })]);
    expect(await h.store.count()).toBe(0);
  });

  it('the provider requests of sends in flight do not grow with their number: one mined-nonce read per poll for the lane, no receipt asked of an unmined nonce', async () => {
    const h = new SendHarness({ workflows: [payouts({ wait_for: 'submitted' })] });
    h.chain.holdMining();
    const runs: string[] = [];
    for (let i = 0; i < 50; i++) runs.push(await h.run('payouts', { to: TO, amount: String(i + 1) }));
    h.clock.advance(2_000);
    await h.watch.drain('engine-a');
    const counts = countCalls(h);
    for (let poll = 0; poll < 10; poll++) {
      h.clock.advance(1_000);
      await h.watch.drain('engine-a');
    }
    expect(counts).toEqual({ nonce: 10 });
    h.chain.mine();
    h.clock.advance(1_000);
    await h.watch.drain('engine-a');
    const settled = (await Promise.all(runs.map((r) => h.events(r, 'send.settled')))).flat();
    expect(settled).toHaveLength(50);
    expect(settled.every((e) => e.outcome === 'confirmed')).toBe(true);
    expect(h.chain.transactions().map((t) => t.nonce).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });
});
