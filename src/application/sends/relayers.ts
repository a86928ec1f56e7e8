import { inject, injectable } from 'inversify';
import { InvalidInputError } from '../../domain/errors';
import { ChainflowConfig, type NetworkConfig } from '../config';
import { requireSecrets } from '../secrets-needed';
import { ChainSender, type ChainTarget } from '../ports/chain';
import type { NonceLane } from '../ports/nonce-allocator';

/** A relayer ready to send: its network, the chain target, its nonce lane, signing key and address. */
export interface RelayerAccount {
  readonly name: string;
  readonly network: NetworkConfig;
  readonly target: ChainTarget;
  readonly lane: NonceLane;
  /** The resolved signing key. Never journaled, never in a message. */
  readonly signer: string;
  readonly address: string;
}

/** Configured relayers as accounts (addresses derived once per relayer). */
@injectable()
export class Relayers {
  private readonly cache = new Map<string, RelayerAccount>();

  constructor(
    @inject(ChainflowConfig) private readonly config: ChainflowConfig,
    @inject(ChainSender) private readonly sender: ChainSender,
  ) {}

  /**
   * Why a send made by `relayer` on `network` can no longer be looked after with this configuration (the relayer or
   * the network left it, or the relayer is on another network now); undefined while both are as the send had them.
   */
  goneFrom(relayer: string, network: string): string | undefined {
    const configured = this.config.relayers.get(relayer);
    if (!configured) return `relayer ${relayer} is no longer configured`;
    if (configured.network !== network) return `relayer ${relayer} is now on network ${configured.network}, not ${network}`;
    if (!this.config.networks.has(network)) return `network ${network} is no longer configured`;
    return undefined;
  }

  /** @throws InvalidInputError naming the relayer when it is unknown, has no signer, or names an unknown network. */
  get(name: string): RelayerAccount {
    const known = this.cache.get(name);
    if (known) return known;
    const relayer = this.config.relayers.get(name);
    if (!relayer) throw new InvalidInputError('relayer', `no relayer named '${name}' is configured`);
    const network = this.config.networks.get(relayer.network);
    if (!network) throw new InvalidInputError('relayer', `relayer '${name}' names unknown network '${relayer.network}'`);
    if (!relayer.signer) {
      // The signer's variable may be unset: a send is the moment it is needed, so it is named now.
      requireSecrets(this.config, [`relayers.${relayer.name}.signer`], `a send from relayer ${relayer.name}`);
      throw new InvalidInputError('relayer', `relayer '${name}' has no signer`);
    }
    const account: RelayerAccount = {
      name, network, target: targetOf(network), lane: { relayer: name, network: network.name }, signer: relayer.signer,
      address: this.sender.address(relayer.signer),
    };
    this.cache.set(name, account);
    return account;
  }
}

export function targetOf(network: NetworkConfig): ChainTarget {
  return { network: network.name, chainId: network.chainId, rpc: network.rpc };
}
