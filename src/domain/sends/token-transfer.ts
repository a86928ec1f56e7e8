import { InvalidInputError } from '../errors';

/** A token transfer a send makes (CONTRACT 8.8): the token contract, the recipient, the amount in base units. */
export interface TokenTransfer {
  /** The token contract (the send's `to`), lowercase 0x-hex. */
  readonly contract: string;
  /** The recipient, lowercase 0x-hex. */
  readonly to: string;
  readonly amount: bigint;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DECIMAL = /^(0|[1-9][0-9]*)$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const MAX_UINT256 = (1n << 256n) - 1n;

/**
 * The token transfer of a call, when it is one: `transfer(address,uint256)` (recipient, amount) or
 * `transferFrom(address,address,uint256)` (owner, recipient, amount) to `contract`. Parameter names and spaces in the
 * signature are allowed (`transfer(address to, uint256 amount)`). Undefined for any other call.
 * @throws InvalidInputError (`call.args`) for a transfer whose recipient or amount does not read as an address and a
 * uint256 (decimal or 0x-hex, as the call's encoding takes them): such a send must not escape max_token_value.
 */
export function tokenTransferOf(contract: string, fn: string, args: readonly unknown[]): TokenTransfer | undefined {
  const m = /^\s*(\w+)\s*\(([^)]*)\)/.exec(fn);
  if (!m) return undefined;
  const types = m[2]!.split(',').map((p) => p.trim().split(/\s+/)[0]).join(',');
  const shape = `${m[1]}(${types})`;
  let to: unknown;
  let amount: unknown;
  if (shape === 'transfer(address,uint256)') [to, amount] = args;
  else if (shape === 'transferFrom(address,address,uint256)') [, to, amount] = args;
  else return undefined;
  const recipient = typeof to === 'string' ? to.trim() : '';
  if (!ADDRESS.test(recipient) || !ADDRESS.test(contract)) throw new InvalidInputError('call.args', `the recipient of ${shape} is not a 20-byte address`);
  const value = uintOf(amount);
  if (value === undefined) throw new InvalidInputError('call.args', `the amount of ${shape} is not a uint256`);
  return { contract: contract.toLowerCase(), to: recipient.toLowerCase(), amount: value };
}

function uintOf(amount: unknown): bigint | undefined {
  if (typeof amount === 'bigint') return amount >= 0n && amount <= MAX_UINT256 ? amount : undefined;
  if (typeof amount === 'number') return Number.isSafeInteger(amount) && amount >= 0 ? BigInt(amount) : undefined;
  if (typeof amount !== 'string') return undefined;
  const text = amount.trim();
  if (!DECIMAL.test(text) && !HEX.test(text)) return undefined;
  const value = BigInt(text);
  return value <= MAX_UINT256 ? value : undefined;
}
