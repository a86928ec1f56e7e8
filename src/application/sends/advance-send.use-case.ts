import { inject, injectable } from 'inversify';
import { bumpFees } from '../../domain/chain/fees';
import { journalReceipt, type TxReceipt } from '../../domain/chain/tx-receipt';
import type { SendOutcome, SendSettled } from '../../domain/journal/journal-event';
import type { SendState, Submission } from '../../domain/sends/send-state';
import { toIso } from '../../domain/time';
import { ChainReader, ChainRejectedError, ChainSender, ChainUnavailableError } from '../ports/chain';
import { Clock } from '../ports/clock';
import { JournalWriter } from '../ports/journal-writer';
import { NonceAllocator, type SignedPurpose, type SignedRecord } from '../ports/nonce-allocator';
import { SendMetrics } from '../ports/send-metrics';
import { resyncLane } from './nonce-sync';
import { Relayers, type RelayerAccount } from './relayers';
import { SEND_POLL_MS } from './submit-send.use-case';

/** How a send in flight is to be taken on. */
export interface AdvanceRequest {
  readonly send: SendState;
  /** Not landed by then (epoch ms): the nonce is freed by a zero-value cancel and the send settles `expired`. */
  readonly expiresAt: number;
  /** Blocks its receipt must have, its own included. */
  readonly confirmations: number;
}

export type Advance =
  /** The send's terminal settle, to be journaled by the caller (with the step's end, when a step waits for it). */
  | { readonly kind: 'settled'; readonly outcome: SendOutcome; readonly txHash: string | null; readonly receipt: TxReceipt | null; readonly event: SendSettled }
  /** Still in flight: look again at `dueAt`. */
  | { readonly kind: 'waiting'; readonly dueAt: number };

/**
 * One look at a send in flight (CONTRACT 8.5), from its journal and its signed transactions: a receipt of any of its
 * transactions (after `confirmations`) settles it (confirmed, reverted, or expired when the cancel landed); a nonce
 * used by a transaction that is none of its own settles it `replaced`; otherwise the newest transaction is
 * broadcast again when the chain does not know it (same bytes, same hash), replaced with fees raised 12.5% after
 * `replace_after`, or cancelled by a zero-value self-transfer at its nonce once expired. Every new transaction is
 * signed, kept and journaled (`send.submitted`) BEFORE it is broadcast. Safe to run again at any point.
 */
@injectable()
export class AdvanceSend {
  constructor(
    @inject(Relayers) private readonly relayers: Relayers,
    @inject(ChainReader) private readonly reader: ChainReader,
    @inject(ChainSender) private readonly sender: ChainSender,
    @inject(NonceAllocator) private readonly nonces: NonceAllocator,
    @inject(JournalWriter) private readonly journal: JournalWriter,
    @inject(SendMetrics) private readonly metrics: SendMetrics,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(req: AdvanceRequest): Promise<Advance> {
    const { send } = req;
    const account = this.relayers.get(send.relayer);
    const records = await this.nonces.signed(send.sendId);
    const nonce = send.submissions.find((s) => s.nonce !== null)?.nonce ?? records[0]?.nonce ?? null;
    try {
      // The mined count first, then the receipts: a nonce found used with no receipt of ours was used by another transaction.
      const mined = nonce === null ? undefined : await this.reader.nonce(account.target, account.address, 'latest');
      for (const sub of [...send.submissions].reverse()) {
        const receipt = await this.reader.receipt(account.target, sub.txHash);
        if (receipt) return await this.landed(req, account, sub, records, receipt);
      }
      if (mined !== undefined && nonce !== null && mined > nonce) return this.settle(send, 'replaced', null, null);
    } catch (err) {
      if (!(err instanceof ChainUnavailableError)) throw err;
      this.metrics.receiptReadFailed();
      return this.waiting(this.clock.now() + SEND_POLL_MS);
    }
    return this.unmined(req, account, records);
  }

  private async landed(req: AdvanceRequest, account: RelayerAccount, sub: Submission, records: readonly SignedRecord[], receipt: TxReceipt): Promise<Advance> {
    if (req.confirmations > 1) {
      const head = await this.reader.blockNumber(account.target);
      if (head - receipt.blockNumber + 1n < BigInt(req.confirmations)) return this.waiting(this.clock.now() + SEND_POLL_MS);
    }
    const cancel = sub.replacement === 'cancel' || records.find((r) => sameHash(r.txHash, sub.txHash))?.purpose === 'cancel';
    const outcome: SendOutcome = cancel ? 'expired' : receipt.status ? 'confirmed' : 'reverted';
    return this.settle(req.send, outcome, sub.txHash, receipt);
  }

  /** Nothing of the send is mined and its nonce is still free. */
  private async unmined(req: AdvanceRequest, account: RelayerAccount, records: readonly SignedRecord[]): Promise<Advance> {
    const { send } = req;
    const now = this.clock.now();
    const last = send.submissions.at(-1);
    const record = last && records.find((r) => sameHash(r.txHash, last.txHash));
    // Journaled elsewhere (an import) or before this storage existed: only its receipt can be watched for.
    if (!last || !record) return this.waiting(now + SEND_POLL_MS);
    const cancelling = send.submissions.some((s) => s.replacement === 'cancel');
    if (now >= req.expiresAt && !cancelling) {
      const sent = await this.resign(account, record, 'cancel', now);
      if (sent) return this.waiting(now + SEND_POLL_MS);
    } else if (now - last.at >= account.network.replaceAfterMs) {
      const sent = await this.resign(account, record, record.purpose === 'cancel' ? 'cancel' : 'replacement', now);
      if (sent) return this.waiting(now + SEND_POLL_MS);
    } else if (!(await this.known(account, last.txHash))) {
      // Unknown to the chain and its nonce still free: exactly the same signed bytes again (same hash).
      await this.broadcast(account, record);
    }
    const next = Math.min(now + SEND_POLL_MS, last.at + account.network.replaceAfterMs, cancelling ? Number.MAX_SAFE_INTEGER : req.expiresAt);
    return this.waiting(Math.max(next, now + 100));
  }

  /**
   * A new transaction at the send's nonce: the same one with fees raised, or (cancel) a zero-value transfer to the
   * relayer itself. False when the fee cap leaves no raise: nothing is signed, and the newest one is broadcast again.
   */
  private async resign(account: RelayerAccount, previous: SignedRecord, purpose: Exclude<SignedPurpose, 'send'>, now: number): Promise<boolean> {
    let fees;
    try {
      fees = bumpFees(previous.fees, await this.reader.fees(account.target), account.network.maxFeePerGasWei);
    } catch (err) {
      if (err instanceof ChainUnavailableError) return false;
      throw err;
    }
    if (!fees) {
      await this.broadcast(account, previous);
      return false;
    }
    const cancel = purpose === 'cancel';
    const tx = cancel
      ? { to: account.address, valueWei: 0n, data: '0x', gasLimit: 21_000n }
      : { to: previous.to, valueWei: previous.valueWei, data: previous.data, gasLimit: previous.gasLimit };
    const signed = await this.sender.sign({ chainId: account.network.chainId, signer: account.signer, nonce: previous.nonce, fees, ...tx });
    await this.nonces.recordSigned(account.lane, {
      txHash: signed.hash, sendId: previous.sendId, nonce: previous.nonce, purpose, raw: signed.raw, from: signed.from, fees, signedAt: now, ...tx,
    });
    await this.journal.append([{
      type: 'send.submitted', at: toIso(now), send_id: previous.sendId, tx_hash: signed.hash, nonce: previous.nonce,
      replacement: cancel ? 'cancel' : 'fee_bump',
    }]);
    if (cancel) this.metrics.cancelled();
    else this.metrics.replaced();
    await this.broadcast(account, { ...previous, txHash: signed.hash, raw: signed.raw });
    return true;
  }

  /** Broadcasts kept bytes; a refusal or silence leaves the send waiting (the next look decides). */
  private async broadcast(account: RelayerAccount, record: SignedRecord): Promise<void> {
    try {
      await this.sender.broadcast(account.target, { raw: record.raw, hash: record.txHash, from: record.from, nonce: record.nonce });
    } catch (err) {
      if (err instanceof ChainRejectedError) {
        if (err.code === 'nonce_too_low' || err.code === 'nonce_too_high') await resyncLane(account, this.reader, this.nonces, this.clock, this.metrics);
        return;
      }
      if (!(err instanceof ChainUnavailableError)) throw err;
    }
  }

  private async known(account: RelayerAccount, txHash: string): Promise<boolean> {
    try {
      return await this.reader.transactionKnown(account.target, txHash);
    } catch (err) {
      if (err instanceof ChainUnavailableError) return true;
      throw err;
    }
  }

  private settle(send: SendState, outcome: SendOutcome, txHash: string | null, receipt: TxReceipt | null): Advance {
    this.metrics.settled(outcome);
    const event: SendSettled = {
      type: 'send.settled', at: toIso(this.clock.now()), send_id: send.sendId, outcome,
      ...(txHash ? { tx_hash: txHash } : {}), ...(receipt ? { receipt: journalReceipt(receipt) } : {}),
    };
    return { kind: 'settled', outcome, txHash, receipt, event };
  }

  private waiting(dueAt: number): Advance {
    return { kind: 'waiting', dueAt };
  }
}

function sameHash(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
