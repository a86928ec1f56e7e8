import { inject, injectable } from 'inversify';
import { requireSecrets } from '../secrets-needed';
import { InvalidInputError, NotFoundError } from '../../domain/errors';
import type { JournalEvent, Receipt } from '../../domain/journal/journal-event';
import { Redactor } from '../../domain/redactor';
import { toIso } from '../../domain/time';
import { ChainflowConfig } from '../config';
import { ChainSender, type Broadcast, type ChainTarget } from '../ports/chain';
import { Clock } from '../ports/clock';
import { JournalWriter } from '../ports/journal-writer';
import { RunRepository } from '../ports/run-repository';
import { BudgetGuard } from './budget-guard.use-case';

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
  /** Token flows: the token contract and amount (base units), for max_token_value. */
  readonly token?: { readonly address: string; readonly amount: bigint };
  /** How long to wait for the receipt. Default 30 s. */
  readonly waitMs?: number;
}

export type SendResult =
  | { readonly status: 'refused'; readonly error: { kind: string; message: string } }
  | { readonly status: 'failed'; readonly error: { kind: string; message: string } }
  | { readonly status: 'submitted'; readonly txHash: string }
  | { readonly status: 'confirmed' | 'reverted'; readonly txHash: string; readonly receipt: Receipt };

/**
 * The send path of a `send` step: the budget check first (nothing is broadcast when it refuses), then
 * queue, broadcast, wait for the receipt, and settle; every move is journaled, and the terminal settle of a
 * landed send writes its ledger entry in the same transaction. The engine journals the run and the step's
 * start; this journals the step's end.
 */
@injectable()
export class SendTransaction {
  constructor(
    @inject(ChainflowConfig) private readonly config: ChainflowConfig,
    @inject(BudgetGuard) private readonly guard: BudgetGuard,
    @inject(ChainSender) private readonly chain: ChainSender,
    @inject(JournalWriter) private readonly journal: JournalWriter,
    @inject(RunRepository) private readonly runs: RunRepository,
    @inject(Clock) private readonly clock: Clock,
    @inject(Redactor) private readonly redactor: Redactor,
  ) {}

  async execute(req: SendRequest): Promise<SendResult> {
    const relayer = this.config.relayers.get(req.relayer);
    if (!relayer) throw new InvalidInputError('relayer', `no relayer named '${req.relayer}' is configured`);
    const network = this.config.networks.get(relayer.network);
    if (!network) throw new InvalidInputError('relayer', `relayer '${req.relayer}' names unknown network '${relayer.network}'`);
    if (!relayer.signer) {
      // The signer's variable may be unset: a send is the moment it is needed, so it is named now.
      requireSecrets(this.config, [`relayers.${relayer.name}.signer`], `a send from relayer ${relayer.name}`);
      throw new InvalidInputError('relayer', `relayer '${req.relayer}' has no signer`);
    }
    const run = await this.runs.get(req.runId);
    if (!run) throw new NotFoundError('run');
    const at = (): string => toIso(this.clock.now());
    const finish = async (status: 'succeeded' | 'failed', error?: { kind: string; message: string }, before: readonly JournalEvent[] = []): Promise<void> => {
      await this.journal.append([...before, { type: 'step.finished', at: at(), run_id: req.runId, step_run_id: req.stepRunId, status, ...(error ? { error } : {}) }]);
    };

    // The budget checks are journaled with the next write, which always comes before any broadcast.
    const verdict = await this.guard.evaluate({
      runId: req.runId, stepRunId: req.stepRunId, workflow: run.workflow, relayer: req.relayer, valueWei: req.valueWei, token: req.token,
    });
    if (!verdict.allowed) {
      await finish('failed', verdict.error, verdict.events);
      return { status: 'refused', error: verdict.error! };
    }

    const target: ChainTarget = { network: network.name, chainId: network.chainId, rpc: network.rpc };
    await this.journal.append([...verdict.events, {
      type: 'send.queued', at: at(), run_id: req.runId, step_run_id: req.stepRunId, send_id: req.sendId, network: network.name,
      chain_id: network.chainId, relayer: req.relayer, to: req.to, value_wei: req.valueWei.toString(), idempotency_key: req.idempotencyKey,
    }]);
    let sent: Broadcast;
    try {
      sent = await this.chain.broadcast({ target, signer: relayer.signer, to: req.to, valueWei: req.valueWei, data: req.data, gasLimit: req.gasLimit });
    } catch (err) {
      const error = { kind: 'broadcast_failed', message: this.redactor.redactText(err instanceof Error ? err.message : String(err)) };
      await this.journal.append([{ type: 'send.settled', at: at(), send_id: req.sendId, outcome: 'dropped' }]);
      await finish('failed', error);
      return { status: 'failed', error };
    }
    // Outside the try: once broadcast, a failure to journal it must not be mistaken for a dropped send.
    const txHash = sent.txHash;
    await this.journal.append([{ type: 'send.submitted', at: at(), send_id: req.sendId, tx_hash: txHash, nonce: sent.nonce }]);
    // No receipt yet (or no provider answering): the send stays submitted, in flight, for the engine to settle later.
    const receipt = await this.chain.waitForReceipt(target, txHash, req.waitMs ?? 30_000).catch(() => null);
    if (!receipt) return { status: 'submitted', txHash };
    const outcome = Number(receipt.status) === 0 ? 'reverted' : 'confirmed';
    const events: JournalEvent[] = [{ type: 'send.settled', at: at(), send_id: req.sendId, outcome, tx_hash: txHash, receipt }];
    await this.journal.append(events);
    await finish(outcome === 'confirmed' ? 'succeeded' : 'failed', outcome === 'reverted' ? { kind: 'reverted', message: `transaction ${txHash} reverted` } : undefined);
    return { status: outcome, txHash, receipt };
  }
}
