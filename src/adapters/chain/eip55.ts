import { web3 } from './web3-module';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * Why `text` is not an address to send to or call (CONTRACT 8.8), or undefined when it is one. Mixed case is an
 * EIP-55 checksum, and a wrong one is refused: it most likely means a mistyped address, and a payment to it is
 * lost. All-lowercase or all-uppercase carries no checksum and is taken as it is.
 */
export function addressProblem(text: string): string | undefined {
  if (!ADDRESS.test(text)) return 'is not a 20-byte 0x-hex address';
  const hex = text.slice(2);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return undefined;
  // web3 is loaded here only: a config or a run with no mixed-case address never pays for it.
  if (web3().utils.toChecksumAddress(text) === text) return undefined;
  return 'has a wrong EIP-55 checksum (its mixed case does not match: a mistyped address?)';
}
