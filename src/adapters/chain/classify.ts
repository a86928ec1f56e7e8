import type { RpcError } from './json-rpc';

/**
 * What a JSON-RPC error answer means for the request that got it:
 * - `revert`: the node ran the call and it failed (execution reverted, revert data, code 3): every node says so.
 * - `refusal`: the node judged the transaction itself (nonce too low, underpriced, insufficient funds, already
 *   known...): another node would judge alike.
 * - `rate_limited`: the provider asks us to slow down; the request was not judged.
 * - `unavailable`: the provider could not serve it (internal error, header not found, method missing): another
 *   provider, or this one later, may.
 * - `range_too_large`: an eth_getLogs range the provider will not serve (too many results, too many blocks): the
 *   same request keeps failing; a smaller range may not.
 *
 * Text wins over codes: geth-style nodes put reverts, refusals and their own trouble all under -32000, and a
 * provider's rate limit often comes as -32000 or -32603 with words. Codes decide only when the words say nothing
 * known; an unknown answer is never a revert or a refusal (viem's transport retries -32005 and -32603, ethers'
 * FallbackProvider hands a server error to the next provider).
 */
export type RpcErrorKind = 'revert' | 'refusal' | 'rate_limited' | 'unavailable' | 'range_too_large';

const RATE_LIMITED = /rate.?limit|too many requests|limit exceeded|exceeded .*(?:limit|capacity|quota)|request limit|throughput|compute units|quota|slow down|\b429\b|backoff_seconds/i;
const UNAVAILABLE = /header not found|unknown block|missing trie node|internal (?:json-rpc |server )?error|timed? ?out|temporar|unavailable|try again|overloaded|busy|upstream|bad gateway|gateway|no backend|backend|not synced|syncing|connection|method not (?:found|supported|available)|does not exist\/is not available|not supported|unsupported method/i;
const REVERT = /revert|invalid opcode|out of gas|gas required exceeds|always failing transaction|vm exception|stack (?:underflow|overflow)|invalid jump|static ?call|write protection|panic/i;
const REFUSAL = /nonce|underpriced|fee too low|feecap|insufficient (?:funds|fee|balance)|already known|known transaction|already imported|already in (?:the )?(?:tx)?pool|intrinsic gas|exceeds block gas limit|gas limit reached|tx fee .*exceeds|exceeds the configured cap|replacement transaction|invalid sender|invalid signature|invalid chain ?id|only replay-protected|oversized data|transaction type not supported|max (?:priority )?fee per gas/i;

/**
 * Providers' words for "ask for fewer blocks" on eth_getLogs, as Ponder's getLogsRetryHelper recognises them (its
 * list, one provider per alternative): Avalanche, Cloudflare, thirdweb, Infura/zkSync, Ankr/Moonriver, Alchemy,
 * QuickNode/1RPC/Blast, BlockPI, 1RPC's size cap, zkEVM/Infura's result cap, LlamaRPC/Ankr, Optimism (two wordings),
 * Base, Arbitrum, Blast paid, Chainstack, Coinbase, PublicNode, Hyperliquid, Swell, Somnia, Merkle, Harmony, Aurora,
 * Ankr TAC. Checked before the rate-limit words and codes: Infura sends its result cap as -32005 (limit exceeded),
 * and Chainstack says "limit exceeded". Base's "no backend is currently healthy" is left out: it asks for no smaller
 * range, and halving on an outage would shrink every later read for nothing.
 */
const RANGE_TOO_LARGE = new RegExp([
  'requested too many blocks from', 'max range: \\d', 'maximum allowed number of requested blocks', 'try with this block range',
  'block range is too wide', 'this block range should work', 'limited to a [\\d,.]+ range', 'limited to [\\d,.]+ block',
  'response size should not greater than', 'query returned more than \\d+ results', 'query exceeds max results',
  'backend response too large', 'block range is too large', 'block range too large', 'logs matched by query exceeds limit',
  'exceeds the range allowed for your plan', 'block range limit exceeded', 'please limit the query to at most',
  'maximum block range: ', 'query exceeds max block range', 'block range greater than [\\d,.]+ max', 'block range exceeds [\\d,.]+',
  'eth_getlogs range is too large', 'query must be smaller than size', 'up to a [\\d,.]+ block range',
  'maximum \\[from, to\\] blocks distance',
].join('|'), 'i');

/** Codes that say the request was not judged: EIP-1474's limit exceeded (-32005), 429 sent as a code, providers' -32016. */
const RATE_LIMIT_CODES = new Set([-32005, -32016, 429]);
/** Parse error, invalid request, method not found, internal error, resource unavailable/not found, method not supported. */
const UNAVAILABLE_CODES = new Set([-32700, -32600, -32601, -32603, -32002, -32001, -32004, -1]);
/** EIP-1474's "transaction rejected" and invalid params: the node judged what we sent. -32000 alone says nothing. */
const REFUSAL_CODES = new Set([-32003, -32602]);

export function classifyRpcError(error: RpcError): RpcErrorKind {
  const text = error.detail;
  if (error.code === 3) return 'revert';
  if (RANGE_TOO_LARGE.test(text)) return 'range_too_large';
  if (RATE_LIMIT_CODES.has(error.code ?? 0)) return 'rate_limited';
  // Revert data is the contract's reason, and a contract may well revert with "rate limited": a node that sends
  // some, or says the execution reverted, ran the call.
  if ((error.data !== undefined && error.data.length >= 10) || /execution reverted|vm exception/i.test(text)) return 'revert';
  if (RATE_LIMITED.test(text)) return 'rate_limited';
  if (REVERT.test(text)) return 'revert';
  if (REFUSAL.test(text)) return 'refusal';
  if (UNAVAILABLE.test(text) || UNAVAILABLE_CODES.has(error.code ?? 0)) return 'unavailable';
  if (error.code !== undefined && REFUSAL_CODES.has(error.code)) return 'refusal';
  return 'unavailable';
}
