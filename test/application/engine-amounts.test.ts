/**
 * Exact amounts and checked addresses in the engine's steps (CONTRACT 8.8), on fakes of every port: a wrong EIP-55
 * checksum fails the step `expression_error` naming the field before anything is simulated or broadcast, u256
 * expressions pay exactly, and `relayers.<name>.address` is in the expression context.
 */
import type { JournalEvent } from '../../src/domain/journal/journal-event';
import { RelayerAddresses } from '../../src/application/engine/relayer-addresses';
import type { ChainflowConfig } from '../../src/application/config';
import { aRead, aSend, aWorkflow } from '../mothers/workflows';
import { RELAYER_ADDRESS, SendHarness } from '../support/send-harness';

/** EIP-55's own example, and the same address with its last letter's case flipped. */
const GOOD = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const BAD = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD';
const TOKEN = '0x00000000000000000000000000000000000070c0';
const CHECKSUM = 'has a wrong EIP-55 checksum (its mixed case does not match: a mistyped address?)';

const payouts = (fields: Record<string, unknown> = {}, overrides: Parameters<typeof aSend>[2] = {}) =>
  aWorkflow({ name: 'payouts', steps: [aSend('pay', { to: '${{ trigger.payload.to }}', value: '${{ trigger.payload.amount }}', ...fields }, overrides)] });

async function failure(h: SendHarness, runId: string): Promise<{ kind: string; message: string } | undefined> {
  const [finished] = (await h.events(runId, 'step.finished')) as Extract<JournalEvent, { type: 'step.finished' }>[];
  return finished?.error as { kind: string; message: string } | undefined;
}

describe('addresses at run time', () => {
  it('a rendered to with a wrong checksum fails the step expression_error naming the field; nothing is simulated or sent', async () => {
    const h = new SendHarness({ workflows: [payouts()] });
    const runId = await h.run('payouts', { to: BAD, amount: '1' });
    expect(await h.status(runId)).toBe('failed');
    expect(await failure(h, runId)).toEqual({ kind: 'expression_error', message: `to: '${BAD}' ${CHECKSUM}` });
    expect(await h.events(runId, 'step.simulated')).toEqual([]);
    expect(await h.events(runId, 'send.queued')).toEqual([]);
    expect(h.chain.broadcasts).toBe(0);
  });

  it('pays a right checksum, all-lowercase and all-uppercase', async () => {
    const h = new SendHarness({ workflows: [payouts()] });
    for (const to of [GOOD, GOOD.toLowerCase(), `0x${GOOD.slice(2).toUpperCase()}`]) {
      expect(await h.status(await h.run('payouts', { to, amount: '1' }))).toBe('succeeded');
    }
    expect(h.chain.transactions()).toHaveLength(3);
  });

  it('an address argument of a call with a wrong checksum fails the step, naming the argument', async () => {
    const h = new SendHarness({ workflows: [payouts({ to: TOKEN, value: '0', call: { function: 'transfer(address,uint256)', args: ['${{ trigger.payload.to }}', '5'] } })] });
    const runId = await h.run('payouts', { to: BAD });
    expect(await failure(h, runId)).toEqual({ kind: 'expression_error', message: `call: arguments do not fit transfer(address,uint256): args[0]: '${BAD}' ${CHECKSUM}` });
    expect(h.chain.broadcasts).toBe(0);
  });

  it('a read whose to has a wrong checksum fails expression_error before it is called', async () => {
    const h = new SendHarness({ workflows: [aWorkflow({ name: 'peek', steps: [aRead('bal', '${{ trigger.payload.token }}', 'balanceOf(address) returns (uint256)', [GOOD])] })] });
    const runId = await h.run('peek', { token: BAD });
    expect(await h.status(runId)).toBe('failed');
    expect(await failure(h, runId)).toEqual({ kind: 'expression_error', message: `to: '${BAD}' ${CHECKSUM}` });
  });
});

describe('amounts at run time', () => {
  it('pays a u256 amount beyond 2^53 exactly, and a condition on it compares exactly', async () => {
    const workflow = { ...payouts({ value: '${{ u256(trigger.payload.amount) * 2 + 1 }}' }), conditions: [{ name: 'large', if: 'u256(trigger.payload.amount) > u256("10000000000000000000")' }] };
    const h = new SendHarness({ workflows: [workflow] });
    const runId = await h.run('payouts', { to: GOOD, amount: '1152921504606846977000' });
    expect(await h.status(runId)).toBe('succeeded');
    expect(h.chain.transactions()[0]!.valueWei).toBe(2n * 1152921504606846977000n + 1n);
    expect(await h.status(await h.run('payouts', { to: GOOD, amount: '10000000000000000000' }))).toBe('skipped');
  });

  it('an if that overflows u256 fails the step expression_error naming the operation; a condition that does fails the run', async () => {
    const max = ((1n << 256n) - 1n).toString();
    const h = new SendHarness({ workflows: [
      payouts({}, { if: 'u256(trigger.payload.amount) + 1 > 0' }),
      { ...aWorkflow({ name: 'guarded', steps: [aSend('pay', { to: GOOD })] }), conditions: [{ name: 'fits', if: 'u256(trigger.payload.amount) * 2 > 0' }] },
    ] });
    const step = await h.run('payouts', { to: GOOD, amount: max });
    expect(await h.status(step)).toBe('failed');
    expect(await failure(h, step)).toEqual({ kind: 'expression_error', message: `u256 overflow: ${max} + 1 is above 2^256-1` });
    const run = await h.run('guarded', { amount: max });
    expect(await h.status(run)).toBe('failed');
    expect((await h.journal.get(run))!.errorKind).toBe('expression_error');
    expect(h.chain.broadcasts).toBe(0);
  });
});

describe('relayers.<name>.address in expressions', () => {
  it('reads a relayer\'s token balance with no address in the config', async () => {
    const h = new SendHarness({ workflows: [aWorkflow({ name: 'peek', steps: [aRead('bal', TOKEN, 'balanceOf(address) returns (uint256)', ['${{ relayers.ops.address }}'])] })] });
    const runId = await h.run('peek');
    const [started] = await h.events(runId, 'step.started');
    expect(started!.input).toMatchObject({ call: { args: [RELAYER_ADDRESS] } });
  });

  it('a relayer that is not in the context fails the step that names it expression_error', async () => {
    const h = new SendHarness({ workflows: [aWorkflow({ name: 'peek', steps: [aRead('bal', TOKEN, 'balanceOf(address) returns (uint256)', ['${{ relayers.nobody.address }}'])] })] });
    const runId = await h.run('peek');
    expect(await h.status(runId)).toBe('failed');
    expect((await failure(h, runId))!.kind).toBe('expression_error');
  });
});

describe('RelayerAddresses', () => {
  it('derives each relayer\'s address once, leaving out one whose signer is unset or not a key (nothing throws)', () => {
    const config = { relayers: new Map([
      ['ops', { name: 'ops', network: 'sepolia', signer: 'good-key' }],
      ['unset', { name: 'unset', network: 'sepolia' }],
      ['broken', { name: 'broken', network: 'sepolia', signer: 'not-a-key' }],
    ]) } as unknown as ChainflowConfig;
    let derivations = 0;
    const signers = {
      address: (signer: string): string => {
        derivations++;
        if (signer !== 'good-key') throw new Error('invalid private key');
        return GOOD;
      },
    };
    const addresses = new RelayerAddresses(config, signers);
    expect(addresses.context()).toEqual({ ops: { address: GOOD } });
    expect(addresses.context()).toEqual({ ops: { address: GOOD } });
    expect(derivations).toBe(2);
  });
});
