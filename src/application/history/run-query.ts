import { APPROVAL_STATUSES, RUN_STATUSES, SESSION_KINDS } from '../../domain/run';
import type { ParamSpecs, ParsedParams } from '../query/query-params';
import type { RunFilter } from '../ports/run-repository';
import type { ApprovalStatus, RunStatus } from '../../domain/run';
import type { SessionKind } from '../../domain/journal/journal-event';

/** History lists page with `limit` 1 to 500, default 50 (CONTRACT section 5). */
export const HISTORY_LIMIT = { kind: 'limit', min: 1, max: 500, default: 50, description: 'page size, 1 to 500 (default 50)' } as const;
export const CURSOR = { kind: 'cursor', description: 'opaque cursor returned by the previous page' } as const;
const SINCE = { kind: 'time', description: 'a duration back from now (24h, 7d) or an RFC 3339 timestamp; created_at >= since' } as const;
const UNTIL = { kind: 'time', description: 'a duration back from now or an RFC 3339 timestamp; created_at <= until' } as const;

/** Every run filter of the SPEC but the time range, each named as the run item field it filters. */
export const RUN_FIELD_FILTERS: ParamSpecs = {
  workflow: { kind: 'text', description: 'workflow name' },
  status: { kind: 'enum', values: RUN_STATUSES, description: 'run status' },
  trigger: { kind: 'text', description: 'trigger kind' },
  network: { kind: 'text', description: 'network name' },
  contract: { kind: 'text', description: 'contract address' },
  relayer: { kind: 'text', description: 'relayer name (matches any of the run\'s relayers)' },
  tx_hash: { kind: 'text', description: 'transaction hash (matches any of the run\'s sends)' },
  block: { kind: 'int', description: 'block number' },
  run_id: { kind: 'id', description: 'run id' },
  step_id: { kind: 'id', description: 'step id (matches any step the run started)' },
  error_kind: { kind: 'text', description: 'error kind' },
  approval_status: { kind: 'enum', values: APPROVAL_STATUSES, description: 'approval status' },
  session: { kind: 'enum', values: SESSION_KINDS, description: 'session kind' },
  session_id: { kind: 'id', description: 'session id (the runs of one replay or test session)' },
};

/** Every run filter of the SPEC, the time range included. */
export const RUN_FILTER_PARAMS: ParamSpecs = { ...RUN_FIELD_FILTERS, since: SINCE, until: UNTIL };

export const RUN_LIST_PARAMS: ParamSpecs = { ...RUN_FILTER_PARAMS, limit: HISTORY_LIMIT, cursor: CURSOR };

export function toRunFilter(p: ParsedParams): RunFilter {
  return {
    workflow: p.workflow as string | undefined,
    status: p.status as RunStatus | undefined,
    trigger: p.trigger as string | undefined,
    network: p.network as string | undefined,
    contract: p.contract as string | undefined,
    relayer: p.relayer as string | undefined,
    txHash: p.tx_hash as string | undefined,
    block: p.block as number | undefined,
    runId: p.run_id as string | undefined,
    stepId: p.step_id as string | undefined,
    errorKind: p.error_kind as string | undefined,
    approvalStatus: p.approval_status as ApprovalStatus | undefined,
    session: p.session as SessionKind | undefined,
    sessionId: p.session_id as string | undefined,
    since: p.since as number | undefined,
    until: p.until as number | undefined,
  };
}
