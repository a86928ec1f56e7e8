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
    // eth_getLogs ranges refused, in each provider's words (as Ponder's getLogsRetryHelper lists them).
    ['Infura result cap (-32005)', -32005, 'query returned more than 10000 results. Try with this block range [0x1, 0x2].', undefined, 'range_too_large'],
    ['Alchemy', -32602, 'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters, this block range should work: [0x1, 0x2]', undefined, 'range_too_large'],
    ['QuickNode', -32614, 'eth_getLogs is limited to a 10,000 range', undefined, 'range_too_large'],
    ['Ankr', -32600, 'block range is too wide', undefined, 'range_too_large'],
    ['Chainstack ("limit exceeded")', -32000, 'Block range limit exceeded.', undefined, 'range_too_large'],
    ['Base', -32000, 'block range too large', undefined, 'range_too_large'],
    ['Arbitrum', -32000, 'logs matched by query exceeds limit of 10000', undefined, 'range_too_large'],
    ['PublicNode', -32000, 'maximum block range: 50000', undefined, 'range_too_large'],
    ['Coinbase', -32000, 'please limit the query to at most 1000 blocks', undefined, 'range_too_large'],
    ['Avalanche', -32000, 'requested too many blocks from 0 to 5000, maximum is set to 2048', undefined, 'range_too_large'],
    ['LlamaRPC', -32000, 'query exceeds max results 20000, retry with the range 24383075-24383096', undefined, 'range_too_large'],
    ['a healthy-backend outage is no range refusal', -32000, 'no backend is currently healthy to serve traffic', undefined, 'unavailable'],
  ])('%s', (_name, code, message, data, kind) => {
    expect(classifyRpcError(new RpcError(code, message, data))).toBe(kind);
  });
});
