import { inject, injectable } from 'inversify';
import type { TxReceipt } from '../../domain/chain/tx-receipt';
import type { ChainStep } from '../../domain/engine/workflow';
import { InvalidInputError } from '../../domain/errors';
import type { JournalEvent, Json, SendOutcome, SessionKind } from '../../domain/journal/journal-event';
import { sendIdOf, sendsOfStep, type SendState } from '../../domain/sends/send-state';
import { tokenTransferOf, type TokenTransfer } from '../../domain/sends/token-transfer';
import { parseAmount } from '../../domain/wei';
import { Clock } from '../ports/clock';
import { AbiError, ContractAbi } from '../ports/contract-abi';
import { ExpressionError, Expressions } from '../ports/expressions';
import { RunRepository } from '../ports/run-repository';
import { SendBudget } from '../ports/send-budget';
import { SendWatch } from '../ports/send-watch';
import { AdvanceSend, type Advance } from '../sends/advance-send.use-case';
import { Relayers } from '../sends/relayers';
import { SEND_POLL_MS, SubmitSend, WATCH_GRACE_MS } from '../sends/submit-send.use-case';
import type { Attempted, AttemptContext, PreparedAttempt } from './attempt';
import { replayBlockOf } from './run-scope';
import { renderTree } from './templates';

/** After its broadcast, a step waiting for its receipt polls for it in process this long, then parks the run. */
const QUICK_WAIT_MS = 1_500;
/** How long a run holds a send's watch lease while it looks at it. */
const LOOK_LEASE_MS = 60_000;
const HEX_DATA = /^0x(?:[0-9a-fA-F]{2})*$/;

type WaitFor = 'none' | 'submitted' | 'confirmed';

/** A send step's fields once rendered. */
interface RenderedSend {
  readonly relayer: string;
  readonly to: string;
  readonly valueWei: bigint;
  readonly data: string;
  readonly call?: { readonly function: string; readonly args: Json[] };
  /** The token transfer the call makes, charged against max_token_value. */
  readonly tokenTransfer?: TokenTransfer;
  readonly waitFor: WaitFor;
  readonly confirmations: number;
  readonly gasLimit?: bigint;
}

/**
 * The `send` step (CONTRACT 8.1, 8.5) on the send path: render, then SubmitSend (simulate, budget, nonce, sign,
 * journal, broadcast); with `wait_for: confirmed` the run waits (parked, `tx`) until AdvanceSend settles the send,
 * otherwise the step ends after the broadcast and the engine's watcher settles the send later.
 */
@injectable()
export class SendStep {
  constructor(
    @inject(SubmitSend) private readonly submit: SubmitSend,
    @inject(AdvanceSend) private readonly advance: AdvanceSend,
    @inject(SendWatch) private readonly watch: SendWatch,
    @inject(Relayers) private readonly relayers: Relayers,
    @inject(SendBudget) private readonly budget: SendBudget,
    @inject(RunRepository) private readonly runs: RunRepository,
    @inject(ContractAbi) private readonly abi: ContractAbi,
    @inject(Expressions) private readonly expressions: Expressions,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** @throws ExpressionError (a field that does not render, or renders to something that is not what it must be) */
  prepare(step: ChainStep, ctx: AttemptContext): PreparedAttempt {
    const send = this.render(step, ctx);
    let account;
    try {
      account = this.relayers.get(send.relayer);
    } catch (err) {
      if (err instanceof InvalidInputError) throw new ExpressionError(err.message);
      throw err;
    }
    const input: Json = {
      relayer: send.relayer, network: account.network.name, to: send.to, value_wei: send.valueWei.toString(),
      ...(send.call ? { call: send.call } : { data: send.data }), wait_for: send.waitFor, confirmations: send.confirmations,
      timeout_ms: step.timeoutMs, ...(send.gasLimit !== undefined ? { gas_limit: send.gasLimit.toString() } : {}),
    };
    // A send journals its start (and its send.queued / send.submitted) before anything reaches the chain.
    return { input, sideEffects: true, run: () => this.run(step, ctx, send) };
  }

  /**
   * A send step found running (its run parked on the send, or its process died during the step): the send of this
   * attempt is looked at again, never sent anew. Undefined when this attempt queued no send (it simply runs again).
   */
  async resume(step: ChainStep, ctx: AttemptContext, owner: string): Promise<Attempted | undefined> {
    const stream = await this.runs.stream(ctx.runId);
    const send = sendsOfStep(stream, ctx.stepRunId).at(-1);
    const started = stream.reduce((at, e, i) => (e.type === 'step.started' && e.step_run_id === ctx.stepRunId ? i : at), -1);
    if (!send || send.position < started) return undefined;
    if (send.settled) {
      await this.watch.unwatch(send.sendId);
      return outcomeOf(send.sendId, send.settled.outcome, send.settled.txHash, null, []);
    }
    if (send.submissions.length === 0) {
      // Queued only: a test session's simulated send (it stays queued), or a journal from elsewhere.
      return { kind: 'succeeded', output: { send_id: send.sendId, status: 'queued' } };
    }
    const waitFor = this.waitForOf(step);
    if (waitFor !== 'confirmed') return { kind: 'succeeded', output: submittedOutput(send) };
    // The send cannot be followed without its relayer and network: the run is dead-lettered rather than failing
    // here at every claim (CONTRACT 8.7).
    const gone = this.relayers.goneFrom(send.relayer, send.network);
    if (gone) {
      // Nobody follows this send any more: its value stops counting against the budgets now, though the transaction
      // may still land (its ledger entry counts then, if a process that knows the relayer settles it).
      await this.budget.release(send.sendId);
      return { kind: 'failed', error: { kind: 'definition_changed', message: `send ${send.sendId} in flight: ${gone}` }, retryable: false };
    }
    const now = this.clock.now();
    const expiresAt = send.submissions[0]!.at + step.timeoutMs;
    if (!(await this.watch.lease({ sendId: send.sendId, runId: send.runId }, owner, now, now + LOOK_LEASE_MS))) {
      return { kind: 'parked', events: [], wait: { kind: 'tx', dueAt: now + SEND_POLL_MS, expiresAt } };
    }
    const confirmations = this.confirmationsOf(step, send.relayer);
    const advanced = await this.advance.execute({ send, expiresAt, confirmations });
    return this.concluded(send, advanced, owner, expiresAt);
  }

  private async run(step: ChainStep, ctx: AttemptContext, send: RenderedSend): Promise<Attempted> {
    const stream = await this.runs.stream(ctx.runId);
    const sendId = sendIdOf(ctx.stepRunId, sendsOfStep(stream, ctx.stepRunId).length + 1);
    const run = (ctx.scope.run ?? {}) as { workflow?: string; session?: SessionKind };
    const detached = send.waitFor !== 'confirmed';
    const atBlock = replayBlockOf(ctx.scope);
    let result;
    try {
      result = await this.submit.execute({
        runId: ctx.runId, stepRunId: ctx.stepRunId, sendId, workflow: run.workflow ?? '', session: run.session ?? 'live',
        relayer: send.relayer, to: send.to, valueWei: send.valueWei, data: send.data, gasLimit: send.gasLimit,
        idempotencyKey: `${ctx.stepRunId}:${ctx.attempt}`, simulate: true, detached, ...(atBlock !== undefined ? { atBlock } : {}), ...(ctx.fence ? { fence: ctx.fence } : {}),
        ...(send.tokenTransfer ? { tokenTransfer: send.tokenTransfer } : {}),
      });
    } catch (err) {
      if (err instanceof InvalidInputError) return { kind: 'failed', error: { kind: 'broadcast_failed', message: err.message }, retryable: false };
      throw err;
    }
    if (result.kind === 'failed') return { kind: 'failed', error: result.error, events: result.events };
    if (result.kind === 'queued') {
      const output: Record<string, Json> = { send_id: sendId, status: 'queued', simulated: true };
      if (result.simulation?.ok) output.gas_estimate = result.simulation.gasEstimate.toString();
      return { kind: 'succeeded', events: result.events, output };
    }
    const account = this.relayers.get(send.relayer);
    const state: SendState = {
      sendId, runId: ctx.runId, stepRunId: ctx.stepRunId, relayer: send.relayer, network: account.network.name, chainId: account.network.chainId,
      to: send.to, valueWei: send.valueWei, queuedAt: this.clock.now(), settled: null, position: 0,
      submissions: [{ txHash: result.txHash, nonce: result.nonce, at: this.clock.now(), replacement: null }],
    };
    if (detached) return { kind: 'succeeded', output: submittedOutput(state) };
    const expiresAt = this.clock.now() + step.timeoutMs;
    // Most chains answer within a block or two: wait here a little before parking the run, on the lane's shared poll
    // (a receipt poll per send would cost requests in proportion to the sends in flight).
    if (result.delivered) await this.advance.awaitMined(send.relayer, result.nonce, QUICK_WAIT_MS);
    const advanced = await this.advance.execute({ send: state, expiresAt, confirmations: send.confirmations, justBroadcast: result.delivered });
    return this.concluded(state, advanced, undefined, expiresAt);
  }

  /** The step's end once the send settled, or the run's park while it is in flight (the watch due after the park). */
  private async concluded(send: SendState, advanced: Advance, owner: string | undefined, expiresAt: number): Promise<Attempted> {
    if (advanced.kind === 'settled') {
      // The settle is journaled by the caller, after this: the watch stays until then (should this process die first,
      // the watcher settles the send), and whoever next finds it settled lets it go.
      await this.watch.watch({ sendId: send.sendId, runId: send.runId }, this.clock.now() + WATCH_GRACE_MS);
      return outcomeOf(send.sendId, advanced.outcome, advanced.txHash, advanced.receipt, [advanced.event]);
    }
    if (advanced.kind === 'timed_out') {
      // No run waits for it any more: the watcher keeps looking until it lands (its ledger entry) or is dropped.
      if (owner !== undefined) await this.watch.release(send.sendId, owner, advanced.dueAt);
      else await this.watch.watch({ sendId: send.sendId, runId: send.runId }, advanced.dueAt);
      return {
        kind: 'failed', events: [], retryable: false, output: submittedOutput(send),
        error: { kind: 'tx_expired', message: 'not mined within the step timeout, and max_fee_per_gas leaves no fee to cancel it at: its nonce stays reserved, and it may still land' },
      };
    }
    if (owner !== undefined) await this.watch.release(send.sendId, owner, advanced.dueAt + WATCH_GRACE_MS);
    else await this.watch.watch({ sendId: send.sendId, runId: send.runId }, advanced.dueAt + WATCH_GRACE_MS);
    return { kind: 'parked', events: [], wait: { kind: 'tx', dueAt: advanced.dueAt, expiresAt } };
  }

  private render(step: ChainStep, ctx: AttemptContext): RenderedSend {
    const f = renderTree(step.fields as Json, this.expressions, ctx.scope) as Record<string, Json>;
    const relayer = String(f.relayer ?? '');
    const to = String(f.to ?? '').trim();
    const problem = this.abi.addressProblem(to);
    if (problem) throw new ExpressionError(`to: '${to}' ${problem}`);
    let valueWei = 0n;
    if (f.value !== undefined && f.value !== null && f.value !== '') {
      try {
        valueWei = parseAmount(typeof f.value === 'number' ? f.value : String(f.value).trim(), 'value');
      } catch (err) {
        if (err instanceof InvalidInputError) throw new ExpressionError(err.message);
        throw err;
      }
    }
    let data = typeof f.data === 'string' ? f.data.trim() : '0x';
    if (!HEX_DATA.test(data)) throw new ExpressionError('data: not 0x-hex bytes');
    let call: RenderedSend['call'];
    let tokenTransfer: TokenTransfer | undefined;
    if (f.call && typeof f.call === 'object' && !Array.isArray(f.call)) {
      const fn = String(f.call.function ?? '');
      const args = Array.isArray(f.call.args) ? f.call.args : [];
      try {
        data = this.abi.encodeCall(fn, args);
      } catch (err) {
        if (err instanceof AbiError) throw new ExpressionError(`call: ${err.message}`);
        throw err;
      }
      call = { function: fn, args };
      try {
        tokenTransfer = tokenTransferOf(to, fn, args);
      } catch (err) {
        if (err instanceof InvalidInputError) throw new ExpressionError(err.message);
        throw err;
      }
    }
    const gasLimit = typeof f.gas_limit === 'number' ? BigInt(f.gas_limit) : undefined;
    return { relayer, to, valueWei, data, call, tokenTransfer, waitFor: this.waitForOf(step), confirmations: this.confirmationsOf(step, relayer), gasLimit };
  }

  private waitForOf(step: ChainStep): WaitFor {
    const w = step.fields.wait_for;
    return w === 'none' || w === 'submitted' ? w : 'confirmed';
  }

  private confirmationsOf(step: ChainStep, relayer: string): number {
    const c = step.fields.confirmations;
    if (typeof c === 'number' && Number.isSafeInteger(c) && c >= 1) return c;
    return this.relayers.get(relayer).network.confirmations;
  }
}

function submittedOutput(send: SendState): Json {
  const last = send.submissions.at(-1);
  return { send_id: send.sendId, status: 'submitted', tx_hash: last?.txHash ?? null, nonce: last?.nonce ?? null };
}

/** A settled send as its step's end: confirmed succeeds; reverted, expired and dropped fail with their kinds. */
export function outcomeOf(sendId: string, outcome: SendOutcome, txHash: string | null, receipt: TxReceipt | null, events: readonly JournalEvent[]): Attempted {
  const output: Json = {
    send_id: sendId, status: 'settled', outcome, tx_hash: txHash,
    ...(receipt ? { block_number: receipt.blockNumber.toString(), gas_used: receipt.gasUsed.toString() } : {}),
  };
  switch (outcome) {
    case 'confirmed':
      return { kind: 'succeeded', output, events };
    case 'reverted':
      return { kind: 'failed', output, events, error: { kind: 'reverted', message: `transaction ${txHash} reverted` } };
    case 'expired':
      return { kind: 'failed', output, events, error: { kind: 'tx_expired', message: 'not mined within the step timeout; its nonce was freed by a zero-value cancel' } };
    case 'replaced':
      return { kind: 'failed', output, events, error: { kind: 'tx_dropped', message: 'its nonce was used by another transaction of the relayer' } };
    default:
      return { kind: 'failed', output, events, error: { kind: 'tx_dropped', message: 'the transaction never reached the chain' } };
  }
}
