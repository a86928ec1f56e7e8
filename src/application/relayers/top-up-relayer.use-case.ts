import { inject, injectable } from 'inversify';
import { parseDuration } from '../../domain/duration';
import { newRunId } from '../../domain/engine/run-id';
import { InvalidInputError } from '../../domain/errors';
import { ExplorerLinks } from '../../domain/explorer';
import type { ErrorInfo, JournalEvent } from '../../domain/journal/journal-event';
import { Redactor } from '../../domain/redactor';
import { newTopupAttempt, TOPUP_WORKFLOW, type TopupAttempt, type TopupResult } from '../../domain/relayers/topup';
import { toIso } from '../../domain/time';
import { formatNative, parseAmount } from '../../domain/wei';
import { ChainflowConfig, type NetworkConfig, type RelayerConfig } from '../config';
import { requireSecrets } from '../secrets-needed';
import type { ChainTarget } from '../ports/chain';
import { Clock } from '../ports/clock';
import { JournalWriter } from '../ports/journal-writer';
import { TopupAudit } from '../ports/topup-audit';
import { SendTransaction, type SendResult } from '../sends/send-transaction.use-case';
import { RelayerBalances } from './relayer-balances';
import { RelayerBook } from './relayer-book';
import { toTopupItem, type TopupItem } from './relayer-items';

export interface TopupRequest {
  /** The funding relayer (pays the value and the gas). */
  readonly from: string;
  /** The relayer funded. */
  readonly to: string;
  /** An amount literal: integer wei or `<decimal> wei|gwei|ether` (`0.5ether`, `0.5 ether`). */
  readonly amount: string;
  /** Who asks (recorded in the audit trail and the run's trigger). */
  readonly by: string;
  /** How long to wait for the receipt, a duration (`30s`, `2m`); default 2m, at most 1h. */
  readonly wait?: string;
}

export const DEFAULT_TOPUP_WAIT_MS = 120_000;
const MAX_TOPUP_WAIT_MS = 3_600_000;
const MAX_BY_LENGTH = 128;

/**
 * `chainflow relayers topup` (CONTRACT 9): a signed transfer from relayer A to relayer B on their network. Bad
 * input is refused before anything is written. Every attempt that passes validation is an audit row, recorded
 * `pending` before anything reaches the chain and completed with how it ended. The transfer is a run of the
 * synthetic workflow `relayers.topup` whose send goes through the send path (SendTransaction), so that its landed
 * settle writes the ledger entry, attributed to A, in the journal's own transaction.
 */
@injectable()
export class TopUpRelayer {
  constructor(
    @inject(ChainflowConfig) private readonly config: ChainflowConfig,
    @inject(RelayerBook) private readonly book: RelayerBook,
    @inject(RelayerBalances) private readonly balances: RelayerBalances,
    @inject(SendTransaction) private readonly sender: SendTransaction,
    @inject(JournalWriter) private readonly journal: JournalWriter,
    @inject(TopupAudit) private readonly audit: TopupAudit,
    @inject(ExplorerLinks) private readonly explorer: ExplorerLinks,
    @inject(Redactor) private readonly redactor: Redactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** The audit row of the attempt once it ended (whatever its outcome). @throws InvalidInputError (nothing written) */
  async execute(req: TopupRequest): Promise<TopupItem> {
    const from = this.relayer('from', req.from);
    const to = this.relayer('to', req.to);
    if (from.name === to.name) throw new InvalidInputError('to', 'names the funding relayer itself: a top-up goes to another relayer');
    if (from.network !== to.network) {
      throw new InvalidInputError('to', `relayer '${to.name}' is on network '${to.network}', relayer '${from.name}' on '${from.network}': a top-up stays on one network`);
    }
    const network = this.config.networks.get(from.network);
    if (!network) throw new InvalidInputError('from', `relayer '${from.name}' names unknown network '${from.network}'`);
    if (!from.signer) {
      // An unset variable is the likely cause, and the fix: named as such rather than as a missing signer.
      requireSecrets(this.config, [`relayers.${from.name}.signer`], `a top-up from relayer ${from.name}`);
      throw new InvalidInputError('from', `relayer '${from.name}' has no signer configured`);
    }
    const amountWei = parseAmount(req.amount, 'amount');
    if (amountWei === 0n) throw new InvalidInputError('amount', 'must be above zero');
    const by = typeof req.by === 'string' ? req.by.trim() : '';
    // eslint-disable-next-line no-control-regex
    if (!by || by.length > MAX_BY_LENGTH || /[\u0000-\u001f\u007f]/.test(by)) throw new InvalidInputError('by', `must be a name of 1 to ${MAX_BY_LENGTH} printable characters`);
    const waitMs = req.wait === undefined ? DEFAULT_TOPUP_WAIT_MS : parseDuration(req.wait, 'wait');
    if (waitMs > MAX_TOPUP_WAIT_MS) throw new InvalidInputError('wait', 'must be at most 1h');
    const fromAddress = await this.address('from', from);
    const toAddress = await this.address('to', to);
    if (fromAddress.toLowerCase() === toAddress.toLowerCase()) throw new InvalidInputError('to', `relayer '${to.name}' has the address of relayer '${from.name}'`);

    const attempt = newTopupAttempt({
      topupId: newRunId(this.clock.now()), at: this.clock.now(), by, from: from.name, fromAddress, to: to.name, toAddress,
      network: network.name, chainId: network.chainId, amountWei,
    });
    await this.audit.record(attempt);
    let result: TopupResult;
    try {
      result = await this.transfer(attempt, network, waitMs);
    } catch (err) {
      // Whether anything was broadcast is not known here: say so, so that nobody pays twice by retrying blindly.
      const message = this.redactor.redactText(err instanceof Error ? err.message : String(err));
      await this.audit.complete(attempt.topupId, {
        outcome: 'unknown', txHash: null, error: `${message}; check run ${attempt.topupId} and the chain before trying again`,
      }).catch(() => undefined);
      throw err;
    } finally {
      const target: ChainTarget = { network: network.name, chainId: network.chainId, rpc: network.rpc };
      this.balances.forget(target, fromAddress);
      this.balances.forget(target, toAddress);
    }
    await this.audit.complete(attempt.topupId, result);
    const done: TopupAttempt = { ...attempt, ...result };
    return toTopupItem(done, done.txHash === null ? null : this.explorer.tx(done.network, done.chainId, done.txHash), (t) => this.redactor.redactText(t));
  }

  /** Journals the top-up's run, sends through the send path, and ends (or parks) the run. */
  private async transfer(attempt: TopupAttempt, network: NetworkConfig, waitMs: number): Promise<TopupResult> {
    const runId = attempt.topupId;
    const stepRunId = `${runId}.topup`;
    const at = (): string => toIso(this.clock.now());
    const amount = formatNative(attempt.amountWei, network.nativeSymbol, 18);
    await this.journal.append([
      {
        type: 'run.started', at: at(), run_id: runId, workflow: TOPUP_WORKFLOW, session: 'live', network: network.name,
        trigger: {
          kind: 'manual', summary: `top-up of relayer ${attempt.to} from ${attempt.from} by ${attempt.by} (${amount})`,
          payload: { from: attempt.from, to: attempt.to, amount_wei: attempt.amountWei.toString(), by: attempt.by },
        },
      },
      {
        type: 'step.started', at: at(), run_id: runId, step_run_id: stepRunId, step_id: 'topup', step_type: 'send', attempt: 1,
        input: { relayer: attempt.from, to: attempt.toAddress, to_relayer: attempt.to, value_wei: attempt.amountWei.toString() },
      },
    ]);
    const sent = await this.sender.execute({
      runId, stepRunId, sendId: `${runId}.send`, relayer: attempt.from, to: attempt.toAddress, valueWei: attempt.amountWei,
      idempotencyKey: `${TOPUP_WORKFLOW}:${runId}`, waitMs,
    });
    const { result, end } = this.ending(sent, runId, stepRunId, waitMs, at());
    await this.journal.append([end]);
    return result;
  }

  /** How a send's result ends the attempt, and the event that ends (or parks) its run. */
  private ending(sent: SendResult, runId: string, stepRunId: string, waitMs: number, at: string): { result: TopupResult; end: JournalEvent } {
    const finished = (status: 'succeeded' | 'failed', error?: ErrorInfo): JournalEvent =>
      ({ type: 'run.finished', at, run_id: runId, status, ...(error ? { error } : {}) });
    switch (sent.status) {
      case 'confirmed':
        return { result: { outcome: 'confirmed', txHash: sent.txHash, error: null }, end: finished('succeeded') };
      case 'reverted': {
        const error = { kind: 'reverted', message: `transaction ${sent.txHash} reverted` };
        return { result: { outcome: 'reverted', txHash: sent.txHash, error: error.message }, end: finished('failed', error) };
      }
      case 'submitted':
        // Broadcast, no receipt yet: the run waits on its transaction (shown under Waiting), it is not over.
        return {
          result: { outcome: 'submitted', txHash: sent.txHash, error: `no receipt within ${waitMs / 1000} s: the transaction may still land` },
          end: { type: 'run.parked', at, run_id: runId, wait_kind: 'tx', step_run_id: stepRunId },
        };
      case 'failed':
      case 'refused':
        return { result: { outcome: 'failed', txHash: null, error: sent.error.message }, end: finished('failed', sent.error) };
    }
  }

  private relayer(flag: 'from' | 'to', name: string): RelayerConfig {
    const relayer = typeof name === 'string' ? this.config.relayers.get(name) : undefined;
    if (!relayer) {
      const known = [...this.config.relayers.keys()].sort();
      throw new InvalidInputError(flag, `no relayer named '${String(name)}' is configured${known.length ? ` (known: ${known.join(', ')})` : ''}`);
    }
    return relayer;
  }

  private async address(flag: 'from' | 'to', relayer: RelayerConfig): Promise<string> {
    const derived = await this.book.addressOf(relayer);
    if ('error' in derived) throw new InvalidInputError(flag, `relayer '${relayer.name}': ${derived.error}`);
    return derived.address;
  }
}
