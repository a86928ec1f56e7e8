/** A token transfer a send makes (CONTRACT 8.8): the token contract, the recipient, the amount in base units. */
export interface TokenTransfer {
  /** The token contract (the send's `to`), lowercase 0x-hex. */
  readonly contract: string;
  /** The recipient, lowercase 0x-hex. */
  readonly to: string;
  readonly amount: bigint;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const UINT = /^(0|[1-9][0-9]*)$/;
const MAX_UINT256 = (1n << 256n) - 1n;

/**
 * The token transfer of a call, when it is one: `transfer(address,uint256)` (recipient, amount) or
 * `transferFrom(address,address,uint256)` (owner, recipient, amount) to `contract`. Parameter names and spaces in the
 * signature are allowed (`transfer(address to, uint256 amount)`). Undefined for any other call, or for arguments
 * that are not an address and a uint256 (the call's encoding refuses those first).
 */
export function tokenTransferOf(contract: string, fn: string, args: readonly unknown[]): TokenTransfer | undefined {
  const m = /^\s*(\w+)\s*\(([^)]*)\)/.exec(fn);
  if (!m) return undefined;
  const types = m[2]!.split(',').map((p) => p.trim().split(/\s+/)[0]).join(',');
  const shape = `${m[1]}(${types})`;
  let to: unknown;
  let amount: unknown;
  if (shape === 'transfer(address,uint256)' && args.length === 2) [to, amount] = args;
  else if (shape === 'transferFrom(address,address,uint256)' && args.length === 3) [, to, amount] = args;
  else return undefined;
  const text = typeof amount === 'bigint' ? amount.toString() : typeof amount === 'number' && Number.isSafeInteger(amount) ? String(amount) : String(amount).trim();
  if (typeof to !== 'string' || !ADDRESS.test(to.trim()) || !ADDRESS.test(contract) || !UINT.test(text)) return undefined;
  const value = BigInt(text);
  if (value > MAX_UINT256) return undefined;
  return { contract: contract.toLowerCase(), to: to.trim().toLowerCase(), amount: value };
}
