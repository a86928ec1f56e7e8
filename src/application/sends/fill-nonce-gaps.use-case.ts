import { inject, injectable } from 'inversify';
import { capFees } from '../../domain/chain/fees';
import { Redactor } from '../../domain/redactor';
import { ChainflowConfig } from '../config';
import { ChainReader, ChainSender } from '../ports/chain';
import { Clock } from '../ports/clock';
import { Logger } from '../ports/logger';
import { NonceAllocator } from '../ports/nonce-allocator';
import { Relayers, type RelayerAccount } from './relayers';

/**
 * Fills the holes of relayer lanes (CONTRACT 8.7, "the lane never stays jammed"): a nonce freed by a failed broadcast
 * behind nonces other sends hold stops the chain from including any of them. The next send takes it when one comes;
 * a hole nobody took within the network's `replace_after` is taken by a zero-value self-transfer at that nonce.
 *
 * A gap-filler is not a send of any run: it is kept with the signed transactions under the holder id
 * `gap:<relayer>@<network>:<nonce>` (so its bytes can be broadcast again and its nonce is never handed out), logged,
 * and not journaled; its gas (one plain transfer) is not in the ledger.
 */
@injectable()
export class FillNonceGaps {
  /** When each hole was first seen (lane and nonce): a hole is given its chance to be taken by a send first. */
  private readonly seen = new Map<string, number>();

  constructor(
    @inject(ChainflowConfig) private readonly config: ChainflowConfig,
    @inject(Relayers) private readonly relayers: Relayers,
    @inject(NonceAllocator) private readonly nonces: NonceAllocator,
    @inject(ChainReader) private readonly reader: ChainReader,
    @inject(ChainSender) private readonly sender: ChainSender,
    @inject(Clock) private readonly clock: Clock,
    @inject(Logger) private readonly logger: Logger,
    @inject(Redactor) private readonly redactor: Redactor,
  ) {}

  /** Looks at every configured relayer's lane; resolves with how many gap-fillers were broadcast. */
  async execute(): Promise<number> {
    let filled = 0;
    const now = this.clock.now();
    const current = new Set<string>();
    for (const relayer of this.config.relayers.values()) {
      let account: RelayerAccount;
      try {
        account = this.relayers.get(relayer.name);
      } catch {
        continue; // no signer: it sends nothing, so it has no holes
      }
      for (const nonce of await this.nonces.holes(account.lane)) {
        const key = `${account.lane.relayer}@${account.lane.network}:${nonce}`;
        current.add(key);
        const since = this.seen.get(key) ?? now;
        this.seen.set(key, since);
        if (now - since < account.network.replaceAfterMs) continue;
        try {
          if (await this.fill(account, nonce, `gap:${key}`, now)) filled++;
        } catch (err) {
          this.logger.warn('nonce gap: not filled', { relayer: account.name, network: account.network.name, nonce, err: this.redactor.redactText(String(err)) });
        }
      }
    }
    for (const key of this.seen.keys()) if (!current.has(key)) this.seen.delete(key);
    return filled;
  }

  private async fill(account: RelayerAccount, nonce: number, holderId: string, now: number): Promise<boolean> {
    // Used on chain meanwhile (another client of the key): the lane forgets it, nothing to fill.
    const pending = await this.reader.nonce(account.target, account.address, 'pending');
    if (pending > nonce) {
      await this.nonces.sync(account.lane, pending, now);
      return false;
    }
    if (!(await this.nonces.claim(account.lane, nonce, holderId, now))) return false;
    const fees = capFees(await this.reader.fees(account.target), account.network.maxFeePerGasWei);
    const tx = { to: account.address, valueWei: 0n, data: '0x', gasLimit: 21_000n };
    const signed = await this.sender.sign({ chainId: account.network.chainId, signer: account.signer, nonce, fees, ...tx });
    await this.nonces.recordSigned(account.lane, {
      txHash: signed.hash, sendId: holderId, nonce, purpose: 'cancel', raw: signed.raw, from: signed.from, fees, signedAt: now, ...tx,
    });
    await this.sender.broadcast(account.target, signed);
    this.logger.warn('nonce gap filled by a zero-value self-transfer', { relayer: account.name, network: account.network.name, nonce, tx_hash: signed.hash });
    return true;
  }
}
