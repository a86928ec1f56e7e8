import { inject, injectable } from 'inversify';
import { ChainflowConfig } from '../config';
import { ChainSender } from '../ports/chain';

/** One relayer as expressions see it: its address only (its key never enters the context). */
export interface RelayerInContext {
  readonly address: string;
}

/**
 * `relayers.<name>.address` in the expression context (CONTRACT 8.8): each configured relayer's checksummed address,
 * derived from its signer, so that a `read` of a relayer's token balance needs no address copied into the config.
 * A relayer whose signer is unset or unusable is left out: a run that does not name it goes on, and one that does
 * fails its step `expression_error` (no such key), as for any missing value.
 */
@injectable()
export class RelayerAddresses {
  private known: Readonly<Record<string, RelayerInContext>> | undefined;

  constructor(
    @inject(ChainflowConfig) private readonly config: ChainflowConfig,
    @inject(ChainSender) private readonly signers: Pick<ChainSender, 'address'>,
  ) {}

  /** Derived on first use, once per process (an elliptic-curve multiplication per relayer). */
  context(): Readonly<Record<string, RelayerInContext>> {
    if (!this.known) {
      const known: Record<string, RelayerInContext> = {};
      for (const relayer of this.config.relayers.values()) {
        if (!relayer.signer) continue;
        try {
          known[relayer.name] = { address: this.signers.address(relayer.signer) };
        } catch {
          // Not a key: the relayer's own commands say so; expressions simply do not see it.
        }
      }
      this.known = known;
    }
    return this.known;
  }
}
