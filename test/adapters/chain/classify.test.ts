import { classifyRpcError, type RpcErrorKind } from '../../../src/adapters/chain/classify';
import { RpcError } from '../../../src/adapters/chain/json-rpc';

const ERROR_STRING_RATE_LIMITED = '0x08c379a0' + '0'.repeat(62) + '20' + '0'.repeat(62) + '0c' + Buffer.from('rate limited').toString('hex').padEnd(64, '0');

describe('classifyRpcError: what a JSON-RPC error answer says about the request', () => {
  it.each<[string, number | undefined, string, string | undefined, RpcErrorKind]>([
    ['anvil/geth revert with data', 3, 'execution reverted: nope', '0x08c379a0', 'revert'],
    ['a contract reverting "rate limited"', -32000, 'execution reverted', ERROR_STRING_RATE_LIMITED, 'revert'],
    ['old geth revert without data', -32000, 'execution reverted', undefined, 'revert'],
    ['gas estimation that reverts', -32000, 'gas required exceeds allowance (30000000)', undefined, 'revert'],
    ['nonce too low', -32000, 'nonce too low', undefined, 'refusal'],
    ['underpriced replacement', -32000, 'replacement transaction underpriced', undefined, 'refusal'],
    ['insufficient funds', -32003, 'insufficient funds for gas * price + value', undefined, 'refusal'],
    ['already known', -32000, 'already known', undefined, 'refusal'],
    ['EIP-1474 limit exceeded', -32005, 'limit exceeded', undefined, 'rate_limited'],
    ['Infura-style -32005 with words', -32005, 'daily request count exceeded, request rate limited', undefined, 'rate_limited'],
    ['a rate limit under -32000', -32000, 'Too Many Requests', undefined, 'rate_limited'],
    ['Alchemy compute units', 429, 'Your app has exceeded its compute units per second capacity', undefined, 'rate_limited'],
    ['-32016 over rate limit', -32016, 'over rate limit', undefined, 'rate_limited'],
    ['internal error', -32603, 'internal error', undefined, 'unavailable'],
    ['header not found', -32000, 'header not found', undefined, 'unavailable'],
    ['missing trie node', -32000, 'missing trie node abc (path )', undefined, 'unavailable'],
    ['method not found', -32601, 'the method eth_maxPriorityFeePerGas does not exist/is not available', undefined, 'unavailable'],
    ['an unknown -32000', -32000, 'something odd happened', undefined, 'unavailable'],
    ['no code, no known words', undefined, 'weird', undefined, 'unavailable'],
  ])('%s', (_name, code, message, data, kind) => {
    expect(classifyRpcError(new RpcError(code, message, data))).toBe(kind);
  });
});
