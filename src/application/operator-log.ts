import { inject, injectable } from 'inversify';
import type { ErrorInfo, RunEndStatus, SendOutcome } from '../domain/journal/journal-event';
import { Redactor } from '../domain/redactor';
import { Logger } from './ports/logger';

/** Why a webhook delivery was refused; the sender is told only `bad signature` (or 404), the log says which. */
export type WebhookRefusal = 'stale timestamp' | 'bad signature' | 'malformed header' | 'unknown workflow';

/** The most of a workflow name from a request that a line holds. */
const MAX_NAME = 128;

/**
 * The log lines an operator reads to learn what went wrong without opening the journal (CONTRACT 11): one line per
 * event, its message fixed (so that a log query can match it) and its facts as fields. Every text that came from
 * outside (error messages, which may quote a response or a node) goes through the Redactor first.
 */
@injectable()
export class OperatorLog {
  constructor(
    @inject(Logger) private readonly logger: Logger,
    @inject(Redactor) private readonly redactor: Redactor,
  ) {}

  /** A run ended `failed` or `dead_lettered` (other ends are not trouble and log nothing). */
  runEnded(run: { runId: string; workflow: string; stepId: string | null }, status: RunEndStatus, error: ErrorInfo | undefined): void {
    if (status !== 'failed' && status !== 'dead_lettered') return;
    this.logger.error(status === 'failed' ? 'run failed' : 'run dead-lettered', {
      run_id: run.runId, workflow: run.workflow, step: run.stepId, status,
      error_kind: error?.kind ?? null, message: error?.message === undefined ? null : this.redactor.redactText(error.message),
    });
  }

  /** A budget refused a send: nothing was broadcast. */
  budgetRefused(send: { sendId: string; workflow: string; relayer: string }, budgets: readonly string[], message: string): void {
    this.logger.warn('budget refused a send', {
      send_id: send.sendId, workflow: send.workflow, relayer: send.relayer, budgets, error_kind: 'budget_exceeded',
      message: this.redactor.redactText(message),
    });
  }

  /** A send settled without its own transaction landing (`dropped`, `expired`, `replaced`); others log nothing. */
  sendSettled(sendId: string, outcome: SendOutcome, txHash: string | null): void {
    if (outcome !== 'dropped' && outcome !== 'expired' && outcome !== 'replaced') return;
    this.logger.warn(`send ${outcome}`, { send_id: sendId, outcome, tx_hash: txHash });
  }

  /** A relayer's nonce lane took the chain's pending nonce again after a nonce error. */
  nonceResynced(relayer: string, network: string, chainPending: number): void {
    this.logger.warn('nonce lane resynced with the chain', { relayer, network, chain_pending_nonce: chainPending });
  }

  /** A webhook delivery was refused; `reason` is what the sender is never told. */
  webhookRefused(workflow: string, reason: WebhookRefusal): void {
    // The name comes from the request's path: bounded, so that a caller cannot write long lines into the log.
    const name = workflow.length > MAX_NAME ? `${workflow.slice(0, MAX_NAME)}…` : workflow;
    this.logger.warn('webhook refused', { workflow: this.redactor.redactText(name), reason });
  }
}
