/**
 * Budgets on the engine's send path (CONTRACT 8.7, 8.8): the value caps are checked and reserved in one step, so
 * sends fired at once never both pass a cap only one fits; token transfer calls are charged against max_token_value
 * and journal their `token_transfer` on `send.queued`.
 */
import type { BudgetConfig } from '../../src/application/config';
import { anApproval, aSend, aWorkflow } from '../mothers/workflows';
import { SendHarness, TO } from '../support/send-harness';

const TOKEN = '0x00000000000000000000000000000000000000aa';
const OWNER = '0x000000000000000000000000000000000000c0de';
const ETHER = 10n ** 18n;

const tokenCap = (cap: bigint): BudgetConfig => ({ name: 'tokens', windowMs: 86_400_000, maxTokenValue: cap, scope: {} });
const valueCap = (cap: bigint): BudgetConfig => ({ name: 'value', windowMs: 86_400_000, maxNativeValueWei: cap, scope: {} });

const transfer = aWorkflow({ name: 'payouts', steps: [aSend('pay', {
  to: TOKEN, value: '0', call: { function: 'transfer(address,uint256)', args: ['${{ trigger.payload.to }}', '${{ trigger.payload.amount }}'] },
})] });
const transferFrom = aWorkflow({ name: 'sweep', steps: [aSend('pull', {
  to: TOKEN, value: '0', call: { function: 'transferFrom(address, address, uint256)', args: [OWNER, '${{ trigger.payload.to }}', '${{ trigger.payload.amount }}'] },
})] });
const pay = aWorkflow({ name: 'payouts', steps: [aSend('pay', { to: TO, value: '${{ trigger.payload.amount }}' })] });

describe('budgets on the send path', () => {
  it('refuses a token transfer over max_token_value: budget_exceeded, the cap journaled, nothing broadcast', async () => {
    const h = new SendHarness({ workflows: [transfer], budgets: [tokenCap(5n)] });
    const runId = await h.run('payouts', { to: TO, amount: '1000' });
    expect(await h.status(runId)).toBe('failed');
    expect((await h.journal.get(runId))!.errorKind).toBe('budget_exceeded');
    expect(await h.events(runId, 'budget.checked')).toEqual([expect.objectContaining({
      budget: 'tokens', cap: 'max_token_value', cap_wei: '5', spent_wei: '0', request_wei: '1000', token: TOKEN.toLowerCase(), allowed: false,
    })]);
    expect(await h.events(runId, 'send.queued')).toEqual([]);
    expect(h.chain.transactions()).toHaveLength(0);
    // The refusal and the run's failure are noted for the operator (CONTRACT 11), as the journal has them.
    const noted = await h.notifications.list({ equals: {} }, { limit: 10 });
    expect(noted.map((n) => [n.type, n.channel, n.runId, n.data.error_kind, n.data.step_run_id]).sort()).toEqual([
      ['budget_exceeded', 'ops', runId, 'budget_exceeded', `${runId}.pay`],
      ['run_failed', 'ops', runId, 'budget_exceeded', `${runId}.pay`],
    ]);
    // One warn line for the refusal and one error line for the run it failed (CONTRACT 11).
    expect(h.logger.named('budget refused a send')).toEqual([{ level: 'warn', message: 'budget refused a send', fields: expect.objectContaining({
      workflow: 'payouts', relayer: 'ops', budgets: ['tokens'], error_kind: 'budget_exceeded', message: expect.stringContaining("budget 'tokens'"),
    }) }]);
    expect(h.logger.named('run failed')).toEqual([expect.objectContaining({ level: 'error', fields: expect.objectContaining({ run_id: runId, step: 'pay', error_kind: 'budget_exceeded' }) })]);
  });

  it('lets a transfer within the cap through, journals its token_transfer, and counts it against the next one', async () => {
    const h = new SendHarness({ workflows: [transfer], budgets: [tokenCap(5n)] });
    const paid = await h.run('payouts', { to: TO, amount: '3' });
    expect(await h.status(paid)).toBe('succeeded');
    expect(await h.events(paid, 'send.queued')).toEqual([expect.objectContaining({
      token_transfer: { contract: TOKEN.toLowerCase(), to: TO, amount: '3' },
    })]);
    const refused = await h.run('payouts', { to: TO, amount: '3' });
    expect((await h.journal.get(refused))!.errorKind).toBe('budget_exceeded');
    expect(await h.events(refused, 'budget.checked')).toEqual([expect.objectContaining({ spent_wei: '3', request_wei: '3', allowed: false })]);
    expect(await h.status(await h.run('payouts', { to: TO, amount: '2' }))).toBe('succeeded');
  });

  it('charges an amount written in 0x-hex the same: 0x3e8 is 1000', async () => {
    const h = new SendHarness({ workflows: [transfer], budgets: [tokenCap(5n)] });
    const runId = await h.run('payouts', { to: TO, amount: '0x3e8' });
    expect((await h.journal.get(runId))!.errorKind).toBe('budget_exceeded');
    expect(await h.events(runId, 'budget.checked')).toEqual([expect.objectContaining({ request_wei: '1000', allowed: false })]);
    expect(h.chain.transactions()).toHaveLength(0);
  });

  it('charges transferFrom its last argument', async () => {
    const h = new SendHarness({ workflows: [transferFrom], budgets: [tokenCap(5n)] });
    h.chain.answerCalls(TOKEN, () => '0x');
    const runId = await h.run('sweep', { to: TO, amount: '6' });
    expect((await h.journal.get(runId))!.errorKind).toBe('budget_exceeded');
    expect(await h.events(runId, 'budget.checked')).toEqual([expect.objectContaining({ request_wei: '6', cap: 'max_token_value' })]);
  });

  it('journals no token_transfer for a plain value send', async () => {
    const h = new SendHarness({ workflows: [pay] });
    const runId = await h.run('payouts', { amount: '1' });
    const [queued] = await h.events(runId, 'send.queued');
    expect(queued).not.toHaveProperty('token_transfer');
  });

  it('pays exactly one of two 0.6 ether payouts fired at once against a 1 ether max_native_value', async () => {
    const h = new SendHarness({ workflows: [pay], budgets: [valueCap(ETHER)] });
    h.chain.holdMining();
    const [a, b] = await Promise.all([
      h.start.execute({ workflow: 'payouts', session: 'live', trigger: { kind: 'manual', summary: 'manual by test', payload: { amount: '0.6 ether' } } }),
      h.start.execute({ workflow: 'payouts', session: 'live', trigger: { kind: 'manual', summary: 'manual by test', payload: { amount: '0.6 ether' } } }),
    ]);
    const claims = await h.engineStore.claimDue('engine-a', h.clock.now(), h.clock.now() + 15_000, 100);
    await Promise.all(claims.map((c) => h.drive.execute(c, 'engine-a')));
    const kinds = await Promise.all([a!.runId, b!.runId].map(async (id) => (await h.journal.get(id))!.errorKind));
    expect(kinds.filter((k) => k === 'budget_exceeded')).toHaveLength(1);
    expect(h.chain.transactions()).toHaveLength(1);
    expect(h.chain.transactions()[0]!.valueWei).toBe(6n * 10n ** 17n);
  });

  it('an approval guarding a send the budget cannot fit says so in its message when it is requested; one that fits is asked as written', async () => {
    const guarded = aWorkflow({ name: 'payouts', steps: [
      anApproval('approve', { message: 'Pay ${{ trigger.payload.amount }}?' }),
      aSend('pay', { relayer: 'ops', to: TO, value: '${{ trigger.payload.amount }}' }),
    ] });
    const h = new SendHarness({ workflows: [guarded], budgets: [valueCap(ETHER)] });
    const tooMuch = await h.run('payouts', { amount: '1.5 ether' });
    const fits = await h.run('payouts', { amount: '0.5 ether' });
    const [asked] = await h.events(tooMuch, 'approval.requested');
    expect(asked).toMatchObject({ message: `Pay 1.5 ether? [does not fit: budget 'value' has ${ETHER} wei of max_native_value left, step 'pay' would send ${3n * ETHER / 2n} wei]` });
    expect((await h.events(fits, 'approval.requested'))[0]).toMatchObject({ message: 'Pay 0.5 ether?' });
    // Nothing is reserved by asking: the headroom is the whole cap still.
    expect(h.chain.transactions()).toHaveLength(0);
  });
});
