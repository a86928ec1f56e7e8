import { APPROVAL_STATUSES, SESSION_KINDS, WAIT_KINDS } from '../../domain/run';
import { SEND_OUTCOMES, SEND_STATUSES } from '../../domain/send-attempt';
import type { ParamSpecs } from '../query/query-params';

/** The filters of each history list (CONTRACT section 5), each named as the item field it filters. */
export const SEND_FILTERS: ParamSpecs = {
  workflow: { kind: 'text', description: 'workflow name' },
  network: { kind: 'text', description: 'network name' },
  relayer: { kind: 'text', description: 'relayer name' },
  status: { kind: 'enum', values: SEND_STATUSES, description: 'send status' },
  outcome: { kind: 'enum', values: SEND_OUTCOMES, description: 'how a settled send ended' },
  session: { kind: 'enum', values: SESSION_KINDS, description: 'session kind' },
  run_id: { kind: 'id', description: 'run id' },
  tx_hash: { kind: 'text', description: 'transaction hash' },
};

export const APPROVAL_FILTERS: ParamSpecs = {
  workflow: { kind: 'text', description: 'workflow name' },
  status: { kind: 'enum', values: APPROVAL_STATUSES, description: 'approval status' },
};

export const WAITING_FILTERS: ParamSpecs = {
  workflow: { kind: 'text', description: 'workflow name' },
  wait_kind: { kind: 'enum', values: WAIT_KINDS, description: 'what the run waits for' },
};

export const REORG_FILTERS: ParamSpecs = {
  workflow: { kind: 'text', description: 'workflow name' },
  network: { kind: 'text', description: 'network name' },
};

export const REPLAY_FILTERS: ParamSpecs = {
  workflow: { kind: 'text', description: 'workflow name' },
  kind: { kind: 'enum', values: ['replay', 'test'], description: 'session kind' },
};
