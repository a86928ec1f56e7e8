import fc from 'fast-check';
import { ExplorerLinks, isPathSafe } from '../../src/domain/explorer';

describe('ExplorerLinks', () => {
  const links = new ExplorerLinks(new Map([['base', 'https://my-explorer.example/']]));

  it('builds EIP-3091 links by chain id, then by network name', () => {
    expect(links.tx('anything', 1, '0xabc')).toBe('https://etherscan.io/tx/0xabc');
    expect(links.address('sepolia', null, '0xdef')).toBe('https://sepolia.etherscan.io/address/0xdef');
    expect(links.block('arbitrum', undefined, 42)).toBe('https://arbiscan.io/block/42');
    expect(links.tx('Polygon', null, '0x1')).toBe('https://polygonscan.com/tx/0x1');
  });

  it('lets the configuration override a network', () => {
    expect(links.tx('base', 8453, '0x1')).toBe('https://my-explorer.example/tx/0x1');
  });

  it('encodes what is not a plain hash or address, as encodeURIComponent does', () => {
    for (const odd of ['0x/../x?y=1#z', 'a b', 'é✓😀', 'q"\\', '']) {
      expect(links.tx('mainnet', 1, odd)).toBe(`https://etherscan.io/tx/${encodeURIComponent(odd)}`);
      expect(links.address('mainnet', 1, odd)).toBe(`https://etherscan.io/address/${encodeURIComponent(odd)}`);
    }
    expect(links.tx('mainnet', 1, '0xAbC123')).toBe('https://etherscan.io/tx/0xAbC123');
    // A configured base loses its trailing slashes.
    expect(new ExplorerLinks(new Map([['x', 'https://x.example//']])).tx('x', null, '0x1')).toBe('https://x.example/tx/0x1');
  });

  it('gives no link for an unknown network', () => {
    expect(links.tx('devnet-local', 31337, '0x1')).toBeNull();
    expect(links.base('nowhere')).toBeNull();
  });

  it('knows at least twenty networks with their main testnets', () => {
    const names = ['mainnet', 'sepolia', 'holesky', 'optimism', 'op-sepolia', 'arbitrum', 'arbitrum-sepolia', 'base', 'base-sepolia',
      'polygon', 'amoy', 'bsc', 'bsc-testnet', 'avalanche', 'fuji', 'gnosis', 'linea', 'scroll', 'zksync', 'celo', 'fantom', 'mantle', 'blast'];
    expect(names.filter((n) => links.base(n) === null)).toEqual([]);
  });

  it('makes every transaction link of a network from its prefix: the hash added as it is when it is letters and digits', () => {
    const network = fc.oneof(fc.constantFrom('base', 'Base', 'sepolia', 'mainnet', 'private', 'holes\u212Ay'), fc.string());
    const chainId = fc.oneof(fc.constantFrom(1, 8453, 10, 999), fc.constant(null));
    const hash = fc.oneof(fc.stringMatching(/^[0-9A-Za-z]{0,66}$/), fc.string());
    fc.assert(fc.property(network, chainId, hash, (n, c, h) => {
      const prefix = links.txPrefix(n, c);
      const link = links.tx(n, c, h);
      expect(link === null).toBe(prefix === null);
      if (prefix !== null) expect(link).toBe(`${prefix}${isPathSafe(h) ? h : encodeURIComponent(h)}`);
      expect(isPathSafe(h)).toBe(encodeURIComponent(h) === h && /^[0-9A-Za-z]*$/.test(h));
    }), { numRuns: 1000 });
  });
});
