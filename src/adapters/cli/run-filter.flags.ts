import { Flags } from '@oclif/core';

/** The run filters as flags (`--tx-hash` for the API's `tx_hash`), shared by `history` and `history export`. */
export const runFilterFlags = {
  workflow: Flags.string({ description: 'workflow name' }),
  status: Flags.string({ description: 'run status (running, waiting, succeeded, failed, dead_lettered, cancelled, skipped)' }),
  trigger: Flags.string({ description: 'trigger kind' }),
  network: Flags.string({ description: 'network name' }),
  contract: Flags.string({ description: 'contract address' }),
  relayer: Flags.string({ description: 'relayer name' }),
  'tx-hash': Flags.string({ description: 'transaction hash' }),
  block: Flags.string({ description: 'block number' }),
  'run-id': Flags.string({ description: 'run id' }),
  'step-id': Flags.string({ description: 'step id' }),
  'error-kind': Flags.string({ description: 'error kind' }),
  'approval-status': Flags.string({ description: 'pending, approved, rejected or expired' }),
  session: Flags.string({ description: 'live, replay or test' }),
  'session-id': Flags.string({ description: 'session id (the runs of one replay or test session)' }),
  since: Flags.string({ description: 'duration back from now (24h, 7d) or RFC 3339 time' }),
  until: Flags.string({ description: 'duration back from now or RFC 3339 time' }),
};

export const RUN_FILTER_FLAG_NAMES = Object.keys(runFilterFlags);
