import type { ChainflowConfig, NetworkConfig } from '../../src/application/config';
import type { WorkflowDefinition } from '../../src/domain/engine/workflow';

/** The token the event tests watch (anvil's first deployment), and another contract. */
export const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
export const OTHER = '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512';
export const TRANSFER = 'Transfer(address indexed from, address indexed to, uint256 value)';
export const ALICE = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const ZERO = `0x${'0'.repeat(40)}`;

/** The decoded payload of a mint of `value` to ALICE. */
export const transfer = (value: number): Record<string, string> => ({ from: ZERO, to: ALICE, value: String(value) });

/** The `devnet` network of the event tests, with these settings. */
export function aDevnet(overrides: Partial<NetworkConfig> = {}): NetworkConfig {
  return { name: 'devnet', chainId: 31337, nativeSymbol: 'ETH', rpc: ['http://fake/'], replaceAfterMs: 60_000, confirmations: 1, ...overrides };
}

/** A config with the devnet network and this one workflow. */
export function anEventConfig(network: NetworkConfig, workflow: WorkflowDefinition): ChainflowConfig {
  return {
    server: { host: '127.0.0.1', port: 8080, healthPublic: true, metricsPublic: false }, storage: { url: 'sqlite::memory:' },
    networks: new Map([['devnet', network]]), relayers: new Map(), budgets: new Map(),
    workflows: new Map([[workflow.name, { name: workflow.name, budgets: [], definition: {}, engine: workflow }]]), secretValues: [],
  };
}
