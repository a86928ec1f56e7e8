import { inject, injectable } from 'inversify';
import { journalReceipt } from '../../domain/chain/tx-receipt';
import { InvalidInputError, NotFoundError } from '../../domain/errors';
import type { ErrorInfo, JournalEvent, Receipt } from '../../domain/journal/journal-event';
import { sendInStream } from '../../domain/sends/send-state';
import type { TokenTransfer } from '../../domain/sends/token-transfer';
import { toIso } from '../../domain/time';
import { Clock } from '../ports/clock';
import { JournalWriter } from '../ports/journal-writer';
import { RunRepository } from '../ports/run-repository';
import { SendWatch } from '../ports/send-watch';
import { AdvanceSend } from './advance-send.use-case';
import { SubmitSend } from './submit-send.use-case';

export interface SendRequest {
  readonly runId: string;
  readonly stepRunId: string;
  readonly sendId: string;
  readonly relayer: string;
  readonly to: string;
  readonly valueWei: bigint;
  readonly idempotencyKey: string;
  readonly data?: string;
  readonly gasLimit?: bigint;
  /** A token transfer call: charged against max_token_value, journaled on `send.queued`. */
  readonly tokenTransfer?: TokenTransfer;
  /** How long to wait for the receipt. Default 30 s. */
  readonly waitMs?: number;
}

export type SendResult =
  | { readonly status: 'refused'; readonly error: { kind: string; message: string } }
  | { readonly status: 'failed'; readonly error: { kind: string; message: string } }
  | { readonly status: 'submitted'; readonly txHash: string }
  | { readonly status: 'confirmed' | 'reverted'; readonly txHash: string; readonly receipt: Receipt };

const POLL_MS = 100;

/**
 * One send outside a workflow's steps (a relayer top-up, tools), on the same send path as the `send` step: the budget
 * check first (nothing is broadcast when it refuses), then the relayer's nonce from storage, sign, journal, broadcast,
 * and wait up to `waitMs` for the receipt; the terminal settle of a landed send writes its ledger entry in the same
 * transaction. Not simulated (an explicit gas limit sends even a call that would revert). Left in flight, the send is
 * settled later by the engine's watcher. The caller journals the run and the step's start; this journals the step's end.
 */
@injectable()
export class SendTransaction {
  private readonly owner = `send-transaction:${process.pid}`;

  constructor(
    @inject(SubmitSend) private readonly submit: SubmitSend,
    @inject(AdvanceSend) private readonly advance: AdvanceSend,
    @inject(SendWatch) private readonly watch: SendWatch,
    @inject(JournalWriter) private readonly journal: JournalWriter,
    @inject(RunRepository) private readonly runs: RunRepository,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(req: SendRequest): Promise<SendResult> {
    const run = await this.runs.get(req.runId);
    if (!run) throw new NotFoundError('run');
    const at = (): string => toIso(this.clock.now());
    const finish = async (status: 'succeeded' | 'failed', before: readonly JournalEvent[], error?: ErrorInfo): Promise<void> => {
      await this.journal.append([...before, { type: 'step.finished', at: at(), run_id: req.runId, step_run_id: req.stepRunId, status, ...(error ? { error } : {}) }]);
    };

    const submitted = await this.submit.execute({
      runId: req.runId, stepRunId: req.stepRunId, sendId: req.sendId, workflow: run.workflow, session: 'live', relayer: req.relayer,
      to: req.to, valueWei: req.valueWei, data: req.data ?? '0x', gasLimit: req.gasLimit, idempotencyKey: req.idempotencyKey,
      simulate: false, detached: true, tokenTransfer: req.tokenTransfer,
    });
    if (submitted.kind === 'failed') {
      await finish('failed', submitted.events, submitted.error);
      return { status: submitted.error.kind === 'budget_exceeded' ? 'refused' : 'failed', error: { kind: submitted.error.kind, message: submitted.error.message ?? '' } };
    }
    if (submitted.kind !== 'submitted') throw new InvalidInputError('session', 'only live sends are broadcast');
    const deadline = this.clock.now() + (req.waitMs ?? 30_000);
    // Held while this waits, so that the engine's watcher leaves the send alone meanwhile.
    await this.watch.lease({ sendId: req.sendId, runId: req.runId }, this.owner, this.clock.now(), deadline + 5_000);
    for (;;) {
      const send = sendInStream(await this.runs.stream(req.runId), req.sendId)!;
      const advanced = await this.advance.execute({ send, expiresAt: Number.MAX_SAFE_INTEGER, confirmations: 1 });
      if (advanced.kind === 'settled' && advanced.receipt && (advanced.outcome === 'confirmed' || advanced.outcome === 'reverted')) {
        const error = advanced.outcome === 'reverted' ? { kind: 'reverted', message: `transaction ${advanced.txHash} reverted` } : undefined;
        await finish(advanced.outcome === 'confirmed' ? 'succeeded' : 'failed', [advanced.event], error);
        await this.watch.unwatch(req.sendId);
        return { status: advanced.outcome, txHash: advanced.txHash!, receipt: journalReceipt(advanced.receipt) };
      }
      if (advanced.kind === 'settled') {
        const error = { kind: 'tx_dropped', message: `the send settled ${advanced.outcome}` };
        await finish('failed', [advanced.event], error);
        await this.watch.unwatch(req.sendId);
        return { status: 'failed', error };
      }
      // No receipt yet (or no provider answering): the send stays submitted, in flight, for the engine to settle later.
      if (this.clock.now() >= deadline) return { status: 'submitted', txHash: submitted.txHash };
      await new Promise((r) => setTimeout(r, Math.min(POLL_MS, Math.max(1, deadline - this.clock.now()))));
    }
  }
}
