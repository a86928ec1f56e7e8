/**
 * Object mothers for the projection records (a run, a send attempt, an approval) as the domain holds them:
 * readable defaults, a test names only what it is about. Times are epoch ms from T0.
 */
import type { Approval } from '../../src/domain/approval';
import type { Run } from '../../src/domain/run';
import type { SendAttempt } from '../../src/domain/send-attempt';
import { aTxHash, T0 } from './journal-events';

/** A live run of `payouts`, started at T0 and running. */
export function aRunRecord(overrides: Partial<Run> = {}): Run {
  return {
    runId: 'run-1', workflow: 'payouts', status: 'running', triggerKind: 'cron', session: 'live', sessionId: null,
    network: null, contract: null, block: null, relayers: [], txHashes: [], stepIds: [], errorKind: null, approvalStatus: null,
    waitKind: null, parkedAt: null, waitStepRunId: null, dueAt: null, expiresAt: null, replayOf: null,
    createdAt: T0, finishedAt: null, durationMs: null, ...overrides,
  };
}

/** A send of run-1 queued at T0 (no hash yet). */
export function aSendRecord(overrides: Partial<SendAttempt> = {}): SendAttempt {
  return {
    sendId: 'run-1.send', runId: 'run-1', stepRunId: 'run-1.pay', workflow: 'payouts', session: 'live',
    network: 'sepolia', chainId: 11155111, relayer: 'ops', status: 'queued', outcome: null, txHash: null,
    idempotencyKey: 'payouts:run-1:pay', to: '0x000000000000000000000000000000000000beef', valueWei: 1000n,
    receipt: null, createdAt: T0, updatedAt: T0, ...overrides,
  };
}

/** A send of run-1 settled `confirmed` as aTxHash('landed'). */
export function aSettledSendRecord(overrides: Partial<SendAttempt> = {}): SendAttempt {
  return aSendRecord({ status: 'settled', outcome: 'confirmed', txHash: aTxHash('landed'), ...overrides });
}

/** A pending approval of run-1, requested at T0. */
export function anApprovalRecord(overrides: Partial<Approval> = {}): Approval {
  return {
    approvalId: 'run-1.approve', runId: 'run-1', stepRunId: 'run-1.approve', workflow: 'payouts', status: 'pending',
    message: 'pay?', requestedAt: T0, expiresAt: null, decidedAt: null, decidedBy: null, reason: null, ...overrides,
  };
}
