/**
 * Built-in block explorers (EIP-3091 paths: /tx/, /address/, /block/), keyed by chain id, with the
 * usual network names mapped to them. A network without a known explorer gets no link.
 */
const BY_CHAIN_ID: ReadonlyMap<number, string> = new Map([
  [1, 'https://etherscan.io'],
  [11155111, 'https://sepolia.etherscan.io'],
  [17000, 'https://holesky.etherscan.io'],
  [560048, 'https://hoodi.etherscan.io'],
  [10, 'https://optimistic.etherscan.io'],
  [11155420, 'https://sepolia-optimism.etherscan.io'],
  [42161, 'https://arbiscan.io'],
  [421614, 'https://sepolia.arbiscan.io'],
  [42170, 'https://nova.arbiscan.io'],
  [8453, 'https://basescan.org'],
  [84532, 'https://sepolia.basescan.org'],
  [137, 'https://polygonscan.com'],
  [80002, 'https://amoy.polygonscan.com'],
  [1101, 'https://zkevm.polygonscan.com'],
  [56, 'https://bscscan.com'],
  [97, 'https://testnet.bscscan.com'],
  [43114, 'https://snowtrace.io'],
  [43113, 'https://testnet.snowtrace.io'],
  [250, 'https://ftmscan.com'],
  [100, 'https://gnosisscan.io'],
  [10200, 'https://gnosis-chiado.blockscout.com'],
  [59144, 'https://lineascan.build'],
  [59141, 'https://sepolia.lineascan.build'],
  [534352, 'https://scrollscan.com'],
  [534351, 'https://sepolia.scrollscan.com'],
  [324, 'https://era.zksync.network'],
  [300, 'https://sepolia-era.zksync.network'],
  [5000, 'https://mantlescan.xyz'],
  [81457, 'https://blastscan.io'],
  [42220, 'https://celoscan.io'],
  [1284, 'https://moonbeam.moonscan.io'],
  [25, 'https://explorer.cronos.org'],
  [7777777, 'https://explorer.zora.energy'],
  [130, 'https://uniscan.xyz'],
  [146, 'https://sonicscan.org'],
]);

const BY_NAME: ReadonlyMap<string, number> = new Map([
  ['mainnet', 1], ['ethereum', 1], ['sepolia', 11155111], ['holesky', 17000], ['hoodi', 560048],
  ['optimism', 10], ['op-sepolia', 11155420], ['optimism-sepolia', 11155420], ['arbitrum', 42161],
  ['arbitrum-one', 42161], ['arbitrum-sepolia', 421614], ['arbitrum-nova', 42170], ['base', 8453],
  ['base-sepolia', 84532], ['polygon', 137], ['polygon-amoy', 80002], ['amoy', 80002], ['polygon-zkevm', 1101],
  ['bsc', 56], ['bnb', 56], ['bsc-testnet', 97], ['avalanche', 43114], ['avalanche-fuji', 43113], ['fuji', 43113],
  ['fantom', 250], ['gnosis', 100], ['chiado', 10200], ['linea', 59144], ['linea-sepolia', 59141],
  ['scroll', 534352], ['scroll-sepolia', 534351], ['zksync', 324], ['zksync-sepolia', 300], ['mantle', 5000],
  ['blast', 81457], ['celo', 42220], ['moonbeam', 1284], ['cronos', 25], ['zora', 7777777], ['unichain', 130],
  ['sonic', 146],
]);

/** Resolves explorer base URLs: configured overrides first, then the built-in map by chain id, then by name. */
export class ExplorerLinks {
  /** The configured bases without their trailing slashes (made once: a txs page asks for fifty links). */
  private readonly overrides: ReadonlyMap<string, string>;

  /**
   * `chainIds`: each configured network's chain id, for links where the journal names only the network (a log's
   * block and transaction): a network called `devnet` on chain 1 links to chain 1's explorer.
   */
  constructor(overrides: ReadonlyMap<string, string> = new Map(), private readonly chainIds: ReadonlyMap<string, number> = new Map()) {
    this.overrides = new Map([...overrides].filter(([, base]) => base).map(([network, base]) => [network, base.replace(/\/+$/, '')]));
  }

  base(network: string, chainId?: number | null): string | null {
    const configured = this.overrides.get(network);
    if (configured !== undefined) return configured;
    chainId ??= this.chainIds.get(network);
    if (chainId !== undefined && chainId !== null) {
      const byId = BY_CHAIN_ID.get(chainId);
      if (byId) return byId;
    }
    const id = BY_NAME.get(network.toLowerCase());
    return id === undefined ? null : BY_CHAIN_ID.get(id) ?? null;
  }

  tx(network: string, chainId: number | null | undefined, txHash: string): string | null {
    const prefix = this.txPrefix(network, chainId);
    return prefix === null ? null : `${prefix}${pathSegment(txHash)}`;
  }

  /**
   * What every transaction link of this network starts with (`tx` adds the hash as a path segment, and a hash of
   * letters and digits as it is: see `isPathSafe`), or null where no explorer is known.
   */
  txPrefix(network: string, chainId: number | null | undefined): string | null {
    const base = this.base(network, chainId);
    return base ? `${base}/tx/` : null;
  }

  address(network: string, chainId: number | null | undefined, address: string): string | null {
    const base = this.base(network, chainId);
    return base ? `${base}/address/${pathSegment(address)}` : null;
  }

  /** A block by number, or by hash (EIP-3091's `/block/<hash or height>`): a removed block is found only by its hash. */
  block(network: string, chainId: number | null | undefined, block: number | string): string | null {
    const base = this.base(network, chainId);
    return base ? `${base}/block/${typeof block === 'number' ? block : pathSegment(block)}` : null;
  }
}

/** Letters and digits only: what encodeURIComponent leaves as it is (hashes and addresses are such). */
const PLAIN = /^[0-9A-Za-z]*$/;

/** Whether `text` is a URL path segment as it is (letters and digits only): what `tx` adds to its prefix unchanged. */
export function isPathSafe(text: string): boolean {
  return PLAIN.test(text);
}

/** `text` as a URL path segment: encodeURIComponent's text, without its cost for a hash or an address. */
function pathSegment(text: string): string {
  return isPathSafe(text) ? text : encodeURIComponent(text);
}
