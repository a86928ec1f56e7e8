import { checkEvent } from '../../src/application/journal/event-schema';
import { tokenTransferOf } from '../../src/domain/sends/token-transfer';

const TOKEN = '0x00000000000000000000000000000000000000Aa';
const TO = '0x000000000000000000000000000000000000BEEF';
const FROM = '0x000000000000000000000000000000000000c0de';

describe('tokenTransferOf', () => {
  it('reads transfer(address,uint256) and transferFrom(address,address,uint256): the recipient and the last argument', () => {
    expect(tokenTransferOf(TOKEN, 'transfer(address,uint256)', [TO, '1000'])).toEqual({ contract: TOKEN.toLowerCase(), to: TO.toLowerCase(), amount: 1000n });
    expect(tokenTransferOf(TOKEN, 'transferFrom(address,address,uint256)', [FROM, TO, 7])).toEqual({ contract: TOKEN.toLowerCase(), to: TO.toLowerCase(), amount: 7n });
  });

  it('takes a signature written with spaces and parameter names, and amounts beyond 2^53 exactly', () => {
    const amount = ((1n << 256n) - 1n).toString();
    expect(tokenTransferOf(TOKEN, 'transfer( address to , uint256 amount )', [TO, amount])?.amount).toBe((1n << 256n) - 1n);
  });

  it('reads a 0x-hex amount too (the call encoding takes one): a transfer cannot slip past its cap by the way it is written', () => {
    expect(tokenTransferOf(TOKEN, 'transfer(address,uint256)', [TO, '0x3e8'])?.amount).toBe(1000n);
  });

  it('is undefined for any other call', () => {
    expect(tokenTransferOf(TOKEN, 'approve(address,uint256)', [TO, '1'])).toBeUndefined();
    expect(tokenTransferOf(TOKEN, 'transfer(address,uint128)', [TO, '1'])).toBeUndefined();
    expect(tokenTransferOf(TOKEN, 'balanceOf(address)', [TO])).toBeUndefined();
  });

  it('refuses a transfer whose recipient or amount does not read, naming call.args', () => {
    for (const args of [[TO], [TO, '-1'], [TO, 1.5], [TO, (1n << 256n).toString()], [TO, '1e3'], ['0x12', '1']]) {
      expect(() => tokenTransferOf(TOKEN, 'transfer(address,uint256)', args)).toThrow(/^call\.args: /);
    }
  });
});

describe('send.queued token_transfer in the journal import schema', () => {
  const queued = (extra: Record<string, unknown>): unknown => ({
    type: 'send.queued', at: '2026-01-01T00:00:00.000Z', run_id: 'r1', step_run_id: 'r1.pay', send_id: 'r1.pay:1', network: 'anvil',
    chain_id: 31337, relayer: 'ops', to: TOKEN, value_wei: '0', idempotency_key: 'r1.pay:1', ...extra,
  });

  it('accepts a send.queued without it (journals from before) and with a well-formed one', () => {
    expect(checkEvent(queued({}))).toHaveProperty('event');
    expect(checkEvent(queued({ token_transfer: { contract: TOKEN, to: TO, amount: '3' } }))).toHaveProperty('event');
  });

  it('refuses a malformed one, naming it', () => {
    for (const bad of [{ contract: TOKEN, to: TO, amount: 3 }, { contract: TOKEN, to: 'bob', amount: '3' }, { contract: TOKEN, to: TO }, { contract: TOKEN, to: TO, amount: '3', extra: 1 }]) {
      const checked = checkEvent(queued({ token_transfer: bad }));
      expect(checked).toHaveProperty('problem');
      expect((checked as { problem: string }).problem).toMatch(/token_transfer/);
    }
  });
});
