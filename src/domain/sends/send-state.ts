import type { JournalEvent, SendOutcome } from '../journal/journal-event';
import { parseRfc3339 } from '../time';

/** One broadcast (or one to be made) of a send: the original, a fee-raised replacement, or the zero-value cancel. */
export interface Submission {
  readonly txHash: string;
  readonly nonce: number | null;
  /** Epoch ms of the journaled send.submitted. */
  readonly at: number;
  readonly replacement: 'fee_bump' | 'cancel' | null;
}

/** A send as its run's journal tells it (CONTRACT 3, 8.5): queued, its submissions in order, and its settle. */
export interface SendState {
  readonly sendId: string;
  readonly runId: string;
  readonly stepRunId: string;
  readonly relayer: string;
  readonly network: string;
  readonly chainId: number;
  readonly to: string;
  readonly valueWei: bigint;
  readonly queuedAt: number;
  readonly submissions: Submission[];
  settled: { readonly outcome: SendOutcome; readonly txHash: string | null } | null;
  /** Position in the stream of its send.queued (to tell which step attempt it belongs to). */
  readonly position: number;
}

const ms = (iso: string): number => parseRfc3339(iso) ?? 0;

/** The sends of one step run, in the order they were queued. */
export function sendsOfStep(stream: readonly JournalEvent[], stepRunId: string): SendState[] {
  const sends = new Map<string, SendState>();
  stream.forEach((e, position) => {
    if (e.type === 'send.queued' && e.step_run_id === stepRunId) {
      sends.set(e.send_id, {
        sendId: e.send_id, runId: e.run_id, stepRunId, relayer: e.relayer, network: e.network, chainId: e.chain_id, to: e.to,
        valueWei: BigInt(e.value_wei), queuedAt: ms(e.at), submissions: [], settled: null, position,
      });
    } else if (e.type === 'send.submitted') {
      const send = sends.get(e.send_id);
      send?.submissions.push({ txHash: e.tx_hash, nonce: e.nonce ?? null, at: ms(e.at), replacement: e.replacement ?? null });
      // A reorg removed the block of its receipt: awaited again from now on (CONTRACT 8.6).
      if (send && e.reorged) send.settled = null;
    } else if (e.type === 'send.settled') {
      const send = sends.get(e.send_id);
      if (send) send.settled = { outcome: e.outcome, txHash: e.tx_hash ?? null };
    }
  });
  return [...sends.values()];
}

/** The send of a step run by id, from its run's stream. */
export function sendInStream(stream: readonly JournalEvent[], sendId: string): SendState | undefined {
  const queued = stream.find((e) => e.type === 'send.queued' && e.send_id === sendId);
  return queued && queued.type === 'send.queued' ? sendsOfStep(stream, queued.step_run_id).find((s) => s.sendId === sendId) : undefined;
}

/** The id of the n-th send (1-based) of a step run: the same for every attempt that never got to queue its send. */
export function sendIdOf(stepRunId: string, n: number): string {
  return `${stepRunId}:${n}`;
}
