import { keccak_256 } from '@noble/hashes/sha3';

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
  if (checksummed(hex) === hex) return undefined;
  return 'has a wrong EIP-55 checksum (its mixed case does not match: a mistyped address?)';
}

/**
 * The EIP-55 form of 40 hex digits: a letter is upper case where the keccak-256 of the lower-case digits has a nibble
 * of 8 or more. @noble/hashes (what web3 hashes with) rather than web3 itself: loading web3 costs a config load
 * ten times the hash.
 */
function checksummed(hex: string): string {
  const lower = hex.toLowerCase();
  const hash = keccak_256(lower);
  let out = '';
  for (let i = 0; i < lower.length; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    out += nibble >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  }
  return out;
}
