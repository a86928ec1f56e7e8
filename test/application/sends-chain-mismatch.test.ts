/**
 * CONTRACT 8.8 "Networks" on the send path (fakes of every port): a network whose providers all serve another chain
 * gets nothing signed: the step fails at once with `chain_mismatch`, naming both chain ids, before any nonce is
 * taken. A provider's rate limits or 503s on the way are not failures of the send.
 */
import { T0 } from '../mothers/journal-events';
import { aSend, aWorkflow } from '../mothers/workflows';
import { OTHER_CHAIN_ID } from '../fakes/in-memory-chain';
import { RPC_URL, SendHarness, TO } from '../support/send-harness';

const LANE = { relayer: 'ops', network: 'sepolia' };
const payouts = aWorkflow({ name: 'payouts', steps: [aSend('pay', { to: '${{ trigger.payload.to }}', value: '${{ trigger.payload.amount }}' })] });

describe('a send on a network whose providers serve another chain', () => {
  it('fails chain_mismatch naming both chain ids; nothing simulated as a revert, queued, signed or broadcast, and no nonce taken', async () => {
    const h = new SendHarness({ workflows: [payouts] });
    h.chain.setProvider(RPC_URL, 'other-chain');
    const runId = await h.run('payouts', { to: TO, amount: '1' });
    expect(await h.status(runId)).toBe('failed');
    const run = (await h.journal.get(runId))!;
    expect(run.errorKind).toBe('chain_mismatch');
    const [failed] = await h.events(runId, 'step.finished');
    expect(failed!.error!.message).toBe(`sepolia: chain_id 11155111 is configured, but its providers serve chain ${OTHER_CHAIN_ID}`);
    expect(failed!.error!.message).not.toContain(RPC_URL);
    expect(await h.events(runId, 'step.simulated')).toEqual([]);
    expect(await h.events(runId, 'send.queued')).toEqual([]);
    expect(h.chain.broadcasts).toBe(0);
    expect(await h.store.count()).toBe(0);
    // The lane was never synced or used: the first nonce it hands out is still the first.
    expect(await h.store.synced(LANE)).toBe(false);
  });

  it('a 503 or a rate limit on the way is retried, and the send pays once', async () => {
    const h = new SendHarness({ workflows: [payouts] });
    h.chain.failNextCalls(2, 'rate-limited');
    const first = await h.run('payouts', { to: TO, amount: '1' });
    h.chain.failNextCalls(2, 'http-error');
    const second = await h.run('payouts', { to: TO, amount: '1' });
    for (const id of [first, second]) expect(await h.status(id)).toBe('succeeded');
    expect(h.chain.transactions()).toHaveLength(2);
    expect(await h.store.reserve(LANE, 'probe', T0, 60_000)).toBe(2);
  });
});
