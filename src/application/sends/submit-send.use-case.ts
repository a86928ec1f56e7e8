import { inject, injectable, optional } from 'inversify';
import { capFees } from '../../domain/chain/fees';
import type { ErrorInfo, JournalEvent, SessionKind } from '../../domain/journal/journal-event';
import { Redactor } from '../../domain/redactor';
import type { TokenTransfer } from '../../domain/sends/token-transfer';
import { toIso } from '../../domain/time';
import { ChainMismatchError, ChainReader, ChainRejectedError, ChainSender, ChainUnavailableError, type SignedTransaction, type Simulation } from '../ports/chain';
import { Clock } from '../ports/clock';
import { JournalWriter, type LeaseFence } from '../ports/journal-writer';
import { NonceAllocator } from '../ports/nonce-allocator';
import { SendBudget } from '../ports/send-budget';
import { SendMetrics } from '../ports/send-metrics';
import { SendWatch } from '../ports/send-watch';
import { Relayers, type RelayerAccount } from './relayers';
import { OperatorLog } from '../operator-log';
import { resyncLane } from './nonce-sync';

/** A reserved nonce left unsigned this long is taken to be abandoned (its process died) and reused. */
export const STALE_RESERVATION_MS = 60_000;
/** A run waiting for its send looks again at least this often; the watcher takes over a send nobody looked at for GRACE. */
export const SEND_POLL_MS = 1_000;
export const WATCH_GRACE_MS = 120_000;
/** Broadcasts of one send that may meet a nonce error (each after a resync, at a fresh nonce) before it is dropped. */
const NONCE_TRIES = 3;

/** A send to make (CONTRACT 8.5): rendered, with where it is journaled and how it is to be watched. */
export interface SendRequest {
  readonly runId: string;
  readonly stepRunId: string;
  readonly sendId: string;
  readonly workflow: string;
  readonly session: SessionKind;
  readonly relayer: string;
  readonly to: string;
  readonly valueWei: bigint;
  /** Call data, 0x-hex ('0x' for a plain transfer). */
  readonly data: string;
  /** Gas limit; the simulation's estimate (with headroom for calls) when absent. */
  readonly gasLimit?: bigint;
  readonly idempotencyKey: string;
  /** Simulate first (`step.simulated`); a revert refuses the send. */
  readonly simulate: boolean;
  /** Simulate at this block instead of the latest: a replay session's send, at its log's block (CONTRACT 8.6). */
  readonly atBlock?: bigint;
  /** Nobody waits for the receipt (wait_for none/submitted): the engine's watcher settles the send. */
  readonly detached: boolean;
  /** A token transfer call (CONTRACT 8.8): charged against max_token_value, journaled on `send.queued`. */
  readonly tokenTransfer?: TokenTransfer;
  /**
   * The lease of the engine driving the run (CONTRACT 8.7): the journal refuses the submitted send, and so nothing is
   * broadcast, once another engine took the run over. None outside a leased run (`chainflow send`, top-ups).
   */
  readonly fence?: LeaseFence;
}

export type SubmitResult =
  /** Nothing was broadcast (or the node refused it); `events` are to be journaled with the step's failure. */
  | { readonly kind: 'failed'; readonly error: ErrorInfo; readonly events: readonly JournalEvent[] }
  /** A test or replay session: simulated, never broadcast; `events` are to be journaled with the step's end. */
  | { readonly kind: 'queued'; readonly simulation: Simulation | null; readonly events: readonly JournalEvent[] }
  /** Journaled as submitted and broadcast (or, `delivered` false, no provider answered: it may still arrive). */
  | { readonly kind: 'submitted'; readonly txHash: string; readonly nonce: number; readonly delivered: boolean; readonly simulation: Simulation | null };

/** A signed transaction of a send, with the gas limit it was signed with (a retry keeps it). */
type SignedSend = SignedTransaction & { readonly gasLimit: bigint };

/**
 * The first half of a send (CONTRACT 8.5): simulate, check the budgets, take the relayer's next nonce from storage,
 * sign, keep the signed bytes, journal `send.queued` + `send.submitted` and only then broadcast. A crash anywhere
 * before the journal write leaves nothing broadcast (the same send id takes the same nonce when the step runs again);
 * after it, the send is recovered by its hash (AdvanceSend).
 */
@injectable()
export class SubmitSend {
  private readonly synced = new Set<string>();

  constructor(
    @inject(Relayers) private readonly relayers: Relayers,
    @inject(ChainReader) private readonly reader: ChainReader,
    @inject(ChainSender) private readonly sender: ChainSender,
    @inject(NonceAllocator) private readonly nonces: NonceAllocator,
    @inject(SendWatch) private readonly watch: SendWatch,
    @inject(SendBudget) private readonly budget: SendBudget,
    @inject(JournalWriter) private readonly journal: JournalWriter,
    @inject(SendMetrics) private readonly metrics: SendMetrics,
    @inject(Clock) private readonly clock: Clock,
    @inject(Redactor) private readonly redactor: Redactor,
    @inject(OperatorLog) @optional() private readonly log?: OperatorLog,
  ) {}

  async execute(req: SendRequest): Promise<SubmitResult> {
    const account = this.relayers.get(req.relayer);
    const events: JournalEvent[] = [];
    let simulation: Simulation | null = null;
    // A live send is watched from the start (the row must exist before the journal says submitted); the write goes on
    // while the chain simulates. A send that never gets journaled is let go by the watcher once its run has ended.
    const watched = req.session === 'live'
      ? this.watch.watch({ sendId: req.sendId, runId: req.runId }, this.clock.now() + (req.detached ? SEND_POLL_MS : WATCH_GRACE_MS))
      : Promise.resolve();
    if (req.simulate) {
      try {
        [simulation] = await Promise.all([
          this.reader.simulate(account.target, {
            from: account.address, to: req.to, valueWei: req.valueWei, data: req.data, ...(req.atBlock !== undefined ? { block: req.atBlock } : {}),
          }),
          watched,
        ]);
      } catch (err) {
        await watched.catch(() => undefined);
        await this.letGo(req);
        if (err instanceof ChainMismatchError) return this.failed(events, 'chain_mismatch', err.message);
        return this.failed(events, 'simulation_failed', `simulation not run: ${this.message(err)}`);
      }
      events.push({
        type: 'step.simulated', at: this.now(), run_id: req.runId, step_run_id: req.stepRunId, ok: simulation.ok,
        ...(simulation.ok ? { gas_estimate: simulation.gasEstimate.toString() } : { revert_reason: this.redactor.redactText(simulation.revertReason) }),
      });
      if (!simulation.ok) {
        await this.letGo(req);
        return this.failed(events, 'simulation_failed', `the transaction would revert: ${this.redactor.redactText(simulation.revertReason)}`);
      }
    }
    const queued: JournalEvent = {
      type: 'send.queued', at: this.now(), run_id: req.runId, step_run_id: req.stepRunId, send_id: req.sendId, network: account.network.name,
      chain_id: account.network.chainId, relayer: req.relayer, to: req.to, value_wei: req.valueWei.toString(), idempotency_key: req.idempotencyKey,
      ...(req.tokenTransfer ? { token_transfer: { contract: req.tokenTransfer.contract, to: req.tokenTransfer.to, amount: req.tokenTransfer.amount.toString() } } : {}),
    };
    // Sends of test and replay sessions are simulated and never broadcast: they stay queued.
    if (req.session !== 'live') return { kind: 'queued', simulation, events: [...events, queued] };

    // The check reserves the send's value caps at once (one atomic step): from here on every way out that broadcasts
    // nothing releases them (letGo).
    const verdict = await this.budget.evaluate({
      runId: req.runId, stepRunId: req.stepRunId, sendId: req.sendId, workflow: req.workflow, relayer: req.relayer, valueWei: req.valueWei,
      ...(req.tokenTransfer ? { token: { address: req.tokenTransfer.contract, amount: req.tokenTransfer.amount } } : {}),
    });
    events.push(...verdict.events);
    if (!verdict.allowed) {
      this.metrics.budgetRefused();
      await watched;
      await this.letGo(req);
      return { kind: 'failed', error: verdict.error!, events };
    }

    let signed: SignedSend;
    try {
      signed = await this.sign(account, req, simulation);
    } catch (err) {
      await watched;
      await this.letGo(req);
      // Every provider serves another chain (CONTRACT 8.8): found by the first read, before anything is signed.
      if (err instanceof ChainMismatchError) return this.failed(events, 'chain_mismatch', err.message);
      return this.failed(events, 'broadcast_failed', `not signed: ${this.message(err)}`);
    }
    await watched;
    await this.journal.append([...events, queued, { type: 'send.submitted', at: this.now(), send_id: req.sendId, tx_hash: signed.hash, nonce: signed.nonce }], req.fence ? { fence: req.fence } : undefined);
    for (let tries = 1; ; tries++) {
      try {
        await this.sender.broadcast(account.target, signed);
        return { kind: 'submitted', txHash: signed.hash, nonce: signed.nonce, delivered: true, simulation };
      } catch (err) {
        if (err instanceof ChainUnavailableError) {
          // It may have reached the network: the send stays submitted, and the next look broadcasts the same bytes again.
          return { kind: 'submitted', txHash: signed.hash, nonce: signed.nonce, delivered: false, simulation };
        }
        if (!(err instanceof ChainRejectedError)) throw err;
        // The node refused these bytes. On a nonce error the lane takes the chain's pending nonce first, so the nonce
        // the chain used is forgotten (not freed) and the next reservation is one the chain has not used.
        const nonceError = err.code === 'nonce_too_low' || err.code === 'nonce_too_high';
        if (nonceError) await resyncLane(account, this.reader, this.nonces, this.clock, this.metrics, this.log);
        await this.nonces.giveBack(req.sendId);
        const again = nonceError && tries < NONCE_TRIES ? await this.signAgain(account, req, signed.gasLimit) : undefined;
        if (again) {
          signed = again;
          // Journaled before its broadcast, as the first: the send now waits on this hash and nonce.
          await this.journal.append([{ type: 'send.submitted', at: this.now(), send_id: req.sendId, tx_hash: signed.hash, nonce: signed.nonce }], req.fence ? { fence: req.fence } : undefined);
          continue;
        }
        await this.nonces.giveBack(req.sendId);
        await this.budget.release(req.sendId);
        await this.watch.unwatch(req.sendId);
        this.metrics.settled('dropped');
        this.log?.sendSettled(req.sendId, 'dropped', signed.hash);
        return {
          kind: 'failed', error: { kind: 'broadcast_failed', message: this.redactor.redactText(err.message) },
          events: [{ type: 'send.settled', at: this.now(), send_id: req.sendId, outcome: 'dropped', tx_hash: signed.hash }],
        };
      }
    }
  }

  /** The send signed again at a fresh nonce after a nonce error; undefined when that fails (the send is dropped then). */
  private async signAgain(account: RelayerAccount, req: SendRequest, gasLimit: bigint): Promise<SignedSend | undefined> {
    try {
      return await this.sign(account, { ...req, gasLimit }, null);
    } catch {
      return undefined;
    }
  }

  /** Takes the send's nonce (syncing the lane on the relayer's first use), signs, and keeps the signed bytes. */
  private async sign(account: RelayerAccount, req: SendRequest, simulation: Simulation | null): Promise<SignedSend> {
    // A lane once synced stays synced (a resync only ever raises it): asked of storage once per process.
    const laneKey = `${account.lane.relayer}\u0000${account.lane.network}`;
    if (!this.synced.has(laneKey)) {
      if (!(await this.nonces.synced(account.lane))) {
        await this.nonces.sync(account.lane, await this.reader.nonce(account.target, account.address, 'pending'), this.clock.now());
      }
      this.synced.add(laneKey);
    }
    // The nonce is taken while the chain quotes its fees.
    const [reserved, quoted] = await Promise.allSettled([
      this.nonces.reserve(account.lane, req.sendId, this.clock.now(), STALE_RESERVATION_MS),
      this.reader.fees(account.target),
    ]);
    if (reserved.status === 'rejected') throw reserved.reason;
    if (quoted.status === 'rejected') throw quoted.reason;
    const nonce = reserved.value;
    const fees = capFees(quoted.value, account.network.maxFeePerGasWei);
    const gasLimit = req.gasLimit ?? (await this.gasLimit(account, req, simulation));
    const signed = await this.sender.sign({
      chainId: account.network.chainId, signer: account.signer, nonce, to: req.to, valueWei: req.valueWei, data: req.data, gasLimit, fees,
    });
    await this.nonces.recordSigned(account.lane, {
      txHash: signed.hash, sendId: req.sendId, nonce, purpose: 'send', raw: signed.raw, from: signed.from, to: req.to, valueWei: req.valueWei,
      data: req.data, gasLimit, fees, signedAt: this.clock.now(),
    });
    return { ...signed, gasLimit };
  }

  /** The estimate, with a quarter more for contract calls (state may move between simulation and inclusion). */
  private async gasLimit(account: RelayerAccount, req: SendRequest, simulation: Simulation | null): Promise<bigint> {
    let estimate = simulation?.ok ? simulation.gasEstimate : undefined;
    if (estimate === undefined) {
      const simulated = await this.reader.simulate(account.target, { from: account.address, to: req.to, valueWei: req.valueWei, data: req.data });
      if (!simulated.ok) throw new Error(`gas estimation failed: ${simulated.revertReason}`);
      estimate = simulated.gasEstimate;
    }
    return req.data === '0x' ? estimate : (estimate * 5n + 3n) / 4n;
  }

  /**
   * The send ends before any broadcast: it is no longer watched, and a nonce and budget reservations it holds (a step
   * run again after a crash may hold them from its first try) are given back.
   */
  private async letGo(req: SendRequest): Promise<void> {
    if (req.session !== 'live') return;
    await this.nonces.giveBack(req.sendId);
    await this.budget.release(req.sendId);
    await this.watch.unwatch(req.sendId);
  }

  private failed(events: readonly JournalEvent[], kind: string, message: string): SubmitResult {
    return { kind: 'failed', error: { kind, message: this.redactor.redactText(message) }, events };
  }

  private message(err: unknown): string {
    return err instanceof Error ? err.message : String(err);
  }

  private now(): string {
    return toIso(this.clock.now());
  }
}
