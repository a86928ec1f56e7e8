import type { Json } from '../../domain/journal/journal-event';

/**
 * ABI encoding from human-readable signatures (`transfer(address,uint256)`, `balanceOf(address) returns (uint256)`).
 * Integers decode as decimal strings (never a JS number), addresses checksummed, bytes as 0x-hex.
 */
export interface ContractAbi {
  /** Call data for `signature` with `args`. @throws AbiError naming what is wrong. */
  encodeCall(signature: string, args: readonly Json[]): string;
  /** The returned data of a view call, per the signature's `returns (…)`: one value, or a list for several. */
  decodeResult(signature: string, data: string): Json;
}
export const ContractAbi = Symbol('ContractAbi');

/** A signature that does not parse, or arguments that do not fit it. */
export class AbiError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AbiError';
  }
}
