import { inject, injectable, optional } from 'inversify';
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
import { OperatorLog } from '../operator-log';
import { resyncLane } from './nonce-sync';
import { LaneWatch } from './lane-watch';
import { Relayers, type RelayerAccount } from './relayers';
import { SEND_POLL_MS } from './submit-send.use-case';

/** How a send in flight is to be taken on. */
export interface AdvanceRequest {
  readonly send: SendState;
  /** Not landed by then (epoch ms): the nonce is freed by a zero-value cancel and the send settles `expired`. */
  readonly expiresAt: number;
  /** Blocks its receipt must have, its own included. */
  readonly confirmations: number;
  /** Its newest transaction was broadcast just now: the chain knows it, so it is not checked on this look. */
  readonly justBroadcast?: boolean;
}

export type Advance =
  /** The send's terminal settle, to be journaled by the caller (with the step's end, when a step waits for it). */
  | { readonly kind: 'settled'; readonly outcome: SendOutcome; readonly txHash: string | null; readonly receipt: TxReceipt | null; readonly event: SendSettled }
  /** Still in flight: look again at `dueAt`. */
  | { readonly kind: 'waiting'; readonly dueAt: number }
  /**
   * Expired, and no cancel can replace the transaction under `max_fee_per_gas`: a step waiting for it fails
   * `tx_expired`; the send stays in flight (its nonce reserved) and is looked at again at `dueAt` until it lands or is
   * dropped.
   */
  | { readonly kind: 'timed_out'; readonly dueAt: number };

/** Sends this process keeps per-send memory of before it forgets the stale ones. */
const MEMORY_BOUND = 10_000;

/** Outcome of trying to sign a new transaction at a send's nonce. */
type Resigned = 'signed' | 'capped' | 'unavailable';

/**
 * One look at a send in flight (CONTRACT 8.5, 8.7), from its journal and its signed transactions. The lane's mined
 * nonce (LaneWatch, shared by the lane's sends) says whether the send's nonce is used: only then are its receipts
 * read. A receipt of any of its transactions (after `confirmations`) settles it (confirmed, reverted, or expired when
 * the cancel landed); a nonce used while none of its hashes has a receipt or is known to the chain, seen so on two
 * looks `confirmations` blocks apart, settles it `replaced`. Otherwise, at most once per `replace_after`: a new
 * transaction with both fees raised 12.5% within `max_fee_per_gas` (or, expired, the zero-value cancel), else the
 * same bytes again when the chain does not know them. Every new transaction is signed, kept and journaled
 * (`send.submitted`) BEFORE it is broadcast. Safe to run again at any point.
 */
@injectable()
export class AdvanceSend {
  /** When this process last went beyond the lane's poll for a send (a replacement tried, its bytes checked). */
  private readonly acted = new Map<string, number>();
  /** The head block at which a send's nonce was first seen used with none of its hashes known. */
  private readonly usedSince = new Map<string, bigint>();

  constructor(
    @inject(Relayers) private readonly relayers: Relayers,
    @inject(ChainReader) private readonly reader: ChainReader,
    @inject(ChainSender) private readonly sender: ChainSender,
    @inject(NonceAllocator) private readonly nonces: NonceAllocator,
    @inject(JournalWriter) private readonly journal: JournalWriter,
    @inject(SendMetrics) private readonly metrics: SendMetrics,
    @inject(Clock) private readonly clock: Clock,
    @inject(LaneWatch) private readonly lanes: LaneWatch,
    @inject(OperatorLog) @optional() private readonly log?: OperatorLog,
  ) {}

  async execute(req: AdvanceRequest): Promise<Advance> {
    const { send } = req;
    const account = this.relayers.get(send.relayer);
    const records = await this.nonces.signed(send.sendId);
    await this.journalRetry(send, records);
    // The newest nonce: a send retried after a nonce error was journaled again at a fresh one.
    const nonce = [...send.submissions].reverse().find((s) => s.nonce !== null)?.nonce ?? records.at(-1)?.nonce ?? null;
    if (req.justBroadcast && !this.acted.has(send.sendId)) this.acted.set(send.sendId, this.clock.now());
    this.forgetOld();
    try {
      const mined = nonce === null ? undefined : await this.lanes.latest(account, send.submissions.at(-1)?.at);
      // A nonce the lane's mined count does not cover is not mined: no receipt to ask for.
      if (mined === undefined || nonce === null || mined > nonce) {
        for (const sub of [...send.submissions].reverse()) {
          const receipt = await this.reader.receipt(account.target, sub.txHash);
          if (receipt) return await this.landed(req, account, sub, records, receipt);
        }
        if (nonce !== null && mined !== undefined) return await this.nonceUsed(req, account);
      }
    } catch (err) {
      if (!(err instanceof ChainUnavailableError)) throw err;
      this.metrics.receiptReadFailed();
      return this.waiting(this.clock.now() + SEND_POLL_MS);
    }
    return this.unmined(req, account, records);
  }

  /**
   * A send signed again at a fresh nonce after a nonce error, whose process died before journaling it: its bytes are
   * kept but never left (journal before broadcast), so it is journaled now and the look goes on with it (broadcast
   * when the chain does not know it). Without this its nonce, held for good, would be a gap no send could fill.
   */
  private async journalRetry(send: SendState, records: readonly SignedRecord[]): Promise<void> {
    const journaledNonces = new Set(send.submissions.map((s) => s.nonce));
    const retry = records.filter((r) => r.purpose === 'send' && !journaledNonces.has(r.nonce)).at(-1);
    if (!retry || send.submissions.length === 0) return;
    const at = this.clock.now();
    await this.journal.append([{ type: 'send.submitted', at: toIso(at), send_id: send.sendId, tx_hash: retry.txHash, nonce: retry.nonce }]);
    send.submissions.push({ txHash: retry.txHash, nonce: retry.nonce, at, replacement: null });
  }

  /**
   * Right after a broadcast: waits (at most `timeoutMs`) for the relayer's mined nonce to pass `nonce`, sharing the
   * lane's poll with every other send of the lane. True when it did.
   */
  async awaitMined(relayer: string, nonce: number, timeoutMs: number): Promise<boolean> {
    const account = this.relayers.get(relayer);
    this.lanes.moved(account);
    return this.lanes.mined(account, nonce, timeoutMs);
  }

  /**
   * Sends settled by another process leave their entries here: past a bound, those not acted on for a day go (a send
   * forgotten so is merely looked at as a process's first look would).
   */
  private forgetOld(): void {
    if (this.acted.size + this.usedSince.size < MEMORY_BOUND) return;
    const old = this.clock.now() - 86_400_000;
    for (const [id, at] of this.acted) if (at < old) this.acted.delete(id);
    for (const id of this.usedSince.keys()) if (!this.acted.has(id)) this.usedSince.delete(id);
  }

  /** The mined count passed the send's nonce, yet none of its receipts answered. */
  private async nonceUsed(req: AdvanceRequest, account: RelayerAccount): Promise<Advance> {
    const { send } = req;
    const now = this.clock.now();
    // A receipt that lags the nonce (a provider behind another, an index not caught up) is not a replacement: a
    // hash of ours the chain knows is ours mined, and its receipt is read again.
    for (const sub of send.submissions) {
      if (await this.reader.transactionKnown(account.target, sub.txHash)) {
        this.usedSince.delete(send.sendId);
        return this.waiting(now + SEND_POLL_MS);
      }
    }
    const head = await this.lanes.head(account);
    const since = this.usedSince.get(send.sendId);
    if (since === undefined || head - since + 1n < BigInt(req.confirmations) || head < since) {
      if (since === undefined || head < since) this.usedSince.set(send.sendId, head);
      return this.waiting(now + SEND_POLL_MS);
    }
    return this.settle(send, 'replaced', null, null);
  }

  private async landed(req: AdvanceRequest, account: RelayerAccount, sub: Submission, records: readonly SignedRecord[], receipt: TxReceipt): Promise<Advance> {
    this.usedSince.delete(req.send.sendId);
    if (req.confirmations > 1) {
      const head = await this.lanes.head(account);
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
    const replaceAfter = account.network.replaceAfterMs;
    const cancelling = send.submissions.some((s) => s.replacement === 'cancel');
    const acted = this.acted.get(send.sendId);
    // Beyond the lane's poll a send costs requests at most once per replace_after (and once when a process first
    // looks at it: after a crash its bytes may never have left).
    const due = acted === undefined || now - acted >= replaceAfter;
    const next = this.waiting(Math.max(now + 100, Math.min(now + SEND_POLL_MS, cancelling ? Number.MAX_SAFE_INTEGER : req.expiresAt)));
    if (now >= req.expiresAt && !cancelling) {
      const stuck: Advance = { kind: 'timed_out', dueAt: now + SEND_POLL_MS };
      if (!due && acted! >= req.expiresAt) return stuck;
      this.acted.set(send.sendId, now);
      const resigned = await this.resign(account, record, 'cancel', now);
      if (resigned === 'signed') return next;
      if (resigned === 'unavailable') return next;
      await this.rebroadcastUnknown(account, record);
      return stuck;
    }
    if (!due) return next;
    this.acted.set(send.sendId, now);
    if (now - last.at >= replaceAfter) {
      const resigned = await this.resign(account, record, record.purpose === 'cancel' ? 'cancel' : 'replacement', now);
      // At the cap the send waits at its last fee: no new hash, its bytes sent again only if the chain lost them.
      if (resigned === 'capped') await this.rebroadcastUnknown(account, record);
    } else {
      await this.rebroadcastUnknown(account, record);
    }
    return next;
  }

  /** Exactly the same signed bytes again (same hash), only when the chain does not know them. */
  private async rebroadcastUnknown(account: RelayerAccount, record: SignedRecord): Promise<void> {
    if (!(await this.known(account, record.txHash))) await this.broadcast(account, record);
  }

  /**
   * A new transaction at the send's nonce: the same one with fees raised, or (cancel) a zero-value transfer to the
   * relayer itself. 'capped' when the fee cap leaves no 12.5% raise: nothing is signed.
   */
  private async resign(account: RelayerAccount, previous: SignedRecord, purpose: Exclude<SignedPurpose, 'send'>, now: number): Promise<Resigned> {
    let fees;
    try {
      fees = bumpFees(previous.fees, await this.reader.fees(account.target), account.network.maxFeePerGasWei);
    } catch (err) {
      if (err instanceof ChainUnavailableError) return 'unavailable';
      throw err;
    }
    if (!fees) return 'capped';
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
    return 'signed';
  }

  /** Broadcasts kept bytes; a refusal or silence leaves the send waiting (the next look decides). */
  private async broadcast(account: RelayerAccount, record: SignedRecord): Promise<void> {
    this.lanes.moved(account);
    try {
      await this.sender.broadcast(account.target, { raw: record.raw, hash: record.txHash, from: record.from, nonce: record.nonce });
    } catch (err) {
      if (err instanceof ChainRejectedError) {
        if (err.code === 'nonce_too_low' || err.code === 'nonce_too_high') await resyncLane(account, this.reader, this.nonces, this.clock, this.metrics, this.log);
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
    this.acted.delete(send.sendId);
    this.usedSince.delete(send.sendId);
    this.metrics.settled(outcome);
    this.log?.sendSettled(send.sendId, outcome, txHash);
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
