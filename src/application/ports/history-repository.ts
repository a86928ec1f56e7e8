import type { Approval } from '../../domain/approval';
import type { ExplorerLinks } from '../../domain/explorer';
import type { ReorgResponseRecord } from '../../domain/reorg';
import type { Run } from '../../domain/run';
import type { SendAttempt } from '../../domain/send-attempt';
import type { ReplaySession, WorkflowStateRecord, WorkflowStats } from '../../domain/session';
import type { ItemText, PageRequest } from './run-repository';

/** Filters of a history list: exact matches on named fields (snake_case, as the API names them) and a time range. */
export interface ListFilter {
  readonly equals: Readonly<Record<string, string | number>>;
  /** Time field >= since (epoch ms). */
  readonly since?: number;
  /** Time field <= until (epoch ms). */
  readonly until?: number;
}

/** Everything the workflows overview shows of one workflow, before formatting. */
export interface WorkflowOverview {
  readonly workflow: string;
  readonly state: WorkflowStateRecord | undefined;
  readonly stats: WorkflowStats | undefined;
  readonly runsWaiting: number;
}

/**
 * Reads the history lists other than runs. Each pages newest first on (its time field, its id):
 * sends on (created_at, send_id), approvals on (requested_at, approval_id), waiting runs on (parked_at, run_id),
 * reorg responses on (created_at, reorg_id), sessions on (created_at, session_id).
 */
export interface HistoryRepository {
  listSends(filter: ListFilter, page: PageRequest): Promise<SendAttempt[]>;
  /**
   * The sends of `listSends`, the same page, each as the JSON text of its item (`toSendAttemptItem` with the links
   * of `explorer`, CONTRACT section 4).
   */
  listSendItems(filter: ListFilter, page: PageRequest, explorer: ExplorerTxLinks): Promise<ItemText[]>;
  listApprovals(filter: ListFilter, page: PageRequest): Promise<Approval[]>;
  /** The approvals of `listApprovals`, the same page, each as the JSON text of its item (`toApprovalItem`). */
  listApprovalItems(filter: ListFilter, page: PageRequest): Promise<ItemText[]>;
  /** Runs parked now. */
  listWaiting(filter: ListFilter, page: PageRequest): Promise<Run[]>;
  /** The runs of `listWaiting`, the same page, each as the JSON text of its item (`toWaitingItem`), on (parked_at, run_id). */
  listWaitingItems(filter: ListFilter, page: PageRequest): Promise<ItemText[]>;
  listReorgs(filter: ListFilter, page: PageRequest): Promise<ReorgResponseRecord[]>;
  listSessions(filter: ListFilter, page: PageRequest): Promise<ReplaySession[]>;
  /** The sessions of `listSessions`, the same page, each as the JSON text of its item (`toReplaySessionItem`). */
  listSessionItems(filter: ListFilter, page: PageRequest): Promise<ItemText[]>;
  /** Workflows by name (ascending), after `afterName`, among those named in `known` or seen in the journal. */
  listWorkflows(known: readonly string[], limit: number, afterName?: string): Promise<WorkflowOverview[]>;
  /** Every send of these runs (for exports), oldest first. */
  sendsOfRuns(runIds: readonly string[]): Promise<SendAttempt[]>;
  /** The sends of `sendsOfRuns`, in its order, each as the JSON text of its item (as `listSendItems` renders it). */
  sendItemsOfRuns(runIds: readonly string[], explorer: ExplorerTxLinks): Promise<string[]>;
  /** Every approval of these runs (for exports), oldest first. */
  approvalsOfRuns(runIds: readonly string[]): Promise<Approval[]>;
}
export const HistoryRepository = Symbol('HistoryRepository');

/**
 * Transactions' links on a block explorer (ExplorerLinks): `tx` a transaction's, or null where none is known;
 * `txPrefix` what every link of a network starts with, `tx` adding the hash (as it is when it is letters and digits).
 */
export type ExplorerTxLinks = Pick<ExplorerLinks, 'tx' | 'txPrefix'>;
