import { addOnce, assertRunOpen } from '../../run';
import { parkSend, reopenSend, settleSend, submitSend, type SendAttempt } from '../../send-attempt';
import { landedSettle } from '../../spend/ledger-entry';
import type { Fold, Reducers } from './fold';
import { statsOf } from './workflow-stats';

/**
 * Send attempts: queued by a running step, then parked / submitted, then settled once. A send's later events
 * are its own, not moves of its run: they are taken after the run ended (a send in flight still settles).
 */
export const SEND_REDUCERS: Pick<Reducers, 'send.queued' | 'send.parked' | 'send.submitted' | 'send.settled'> = {
  'send.queued': (f, e) => {
    const run = f.run(e.run_id);
    assertRunOpen(run, e.type);
    if (f.ws.sends.has(e.send_id)) f.refuse('send_id: this send is already queued (a send.queued with other content)');
    f.ws.sends.set(e.send_id, {
      sendId: e.send_id, runId: e.run_id, stepRunId: e.step_run_id, workflow: run.workflow, session: run.session,
      network: e.network, chainId: e.chain_id, relayer: e.relayer, status: 'queued', outcome: null, txHash: null,
      idempotencyKey: e.idempotency_key, to: e.to, valueWei: BigInt(e.value_wei), receipt: null,
      tokenTransfer: e.token_transfer ? { contract: e.token_transfer.contract, to: e.token_transfer.to, amount: BigInt(e.token_transfer.amount) } : null,
      createdAt: f.at, updatedAt: f.at,
    });
    f.ch.sends.add(e.send_id);
    if (addOnce(run.relayers, e.relayer)) f.listsGrew(run);
    if (run.network === null) run.network = e.network;
    f.touch(run);
  },
  'send.parked': (f, e) => {
    const send = sendOf(f, e.send_id);
    parkSend(send, f.at);
    f.ch.sends.add(send.sendId);
  },
  'send.submitted': (f, e) => {
    const send = sendOf(f, e.send_id);
    if (e.reorged) {
      // Back to awaiting its transaction: the entry of the removed landing leaves every sum, in the same write.
      reopenSend(send, e.tx_hash, f.at);
      f.ch.ledger.push({ kind: 'reorged', reorg: { stepRunId: send.stepRunId, txHash: send.txHash!, removedBlockHash: e.reorged.removed_block_hash, at: f.at } });
      f.ch.sends.add(send.sendId);
      return;
    }
    const hadTx = send.txHash !== null;
    submitSend(send, e.tx_hash, f.at);
    noteTx(f, send, hadTx);
  },
  'send.settled': (f, e) => {
    const send = sendOf(f, e.send_id);
    const hadTx = send.txHash !== null;
    settleSend(send, e.outcome, e.tx_hash, e.receipt, f.at);
    const landed = landedSettle(send, send.receipt, f.at);
    if (landed) f.ch.ledger.push(landed);
    noteTx(f, send, hadTx);
  },
};

/** The projector resolved the send before (it names the event's stream). */
function sendOf(f: Fold, sendId: string): SendAttempt {
  return f.ws.sends.get(sendId)!;
}

/** A send's hash: the first one counts in its workflow's stats, each one is listed on its run. */
function noteTx(f: Fold, send: SendAttempt, hadTx: boolean): void {
  f.ch.sends.add(send.sendId);
  if (send.txHash === null) return;
  if (!hadTx) statsOf(f, send.workflow).txCount++;
  const run = f.run(send.runId);
  if (addOnce(run.txHashes, send.txHash)) {
    f.listsGrew(run);
    f.touch(run);
  }
}
