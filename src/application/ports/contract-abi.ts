import type { Json } from '../../domain/journal/journal-event';

/**
 * ABI encoding from human-readable signatures (`transfer(address,uint256)`, `balanceOf(address) returns (uint256)`).
 * Integers decode as decimal strings (never a JS number), addresses checksummed, bytes as 0x-hex. Addresses going
 * in must be 20-byte hex whose EIP-55 checksum, when mixed case, is right (CONTRACT 8.8).
 */
export interface ContractAbi {
  /** Call data for `signature` with `args`. @throws AbiError naming what is wrong (`args[0]: …` for an argument). */
  encodeCall(signature: string, args: readonly Json[]): string;
  /** Why `address` may not be sent to or called (not 20-byte hex, or a wrong mixed-case checksum); undefined when it may. */
  addressProblem(address: string): string | undefined;
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
