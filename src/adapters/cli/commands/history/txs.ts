import { Flags } from '@oclif/core';
import type { SendAttemptItem } from '../../../../application/history/items';
import { ListSends } from '../../../../application/history/list-sends.use-case';
import { listFlags } from '../../base.command';
import { ListCommand, type Column } from '../../list.command';

/** `chainflow history txs`: every send attempted or that would have been sent. */
export default class HistoryTxs extends ListCommand<SendAttemptItem> {
  static override summary = 'List sends (transactions), newest first';
  static override examples = ['<%= config.bin %> history txs --since 24h', '<%= config.bin %> history txs --relayer ops --status submitted'];
  static override flags = {
    workflow: Flags.string({ description: 'workflow name' }),
    network: Flags.string({ description: 'network name' }),
    relayer: Flags.string({ description: 'relayer name' }),
    status: Flags.string({ description: 'queued, parked, submitted or settled' }),
    outcome: Flags.string({ description: 'confirmed, reverted, dropped, expired or replaced' }),
    session: Flags.string({ description: 'live, replay or test' }),
    'run-id': Flags.string({ description: 'run id' }),
    'tx-hash': Flags.string({ description: 'transaction hash' }),
    since: Flags.string({ description: 'duration back from now (24h, 7d) or RFC 3339 time' }),
    until: Flags.string({ description: 'duration back from now or RFC 3339 time' }),
    ...listFlags,
  };

  protected readonly queryFlags = ['workflow', 'network', 'relayer', 'status', 'outcome', 'session', 'run-id', 'tx-hash', 'since', 'until'];
  protected readonly empty = 'no sends';
  protected readonly columns: readonly Column<SendAttemptItem>[] = [
    ['SEND', (s) => s.send_id], ['RUN', (s) => s.run_id], ['WORKFLOW', (s) => s.workflow], ['NETWORK', (s) => s.network],
    ['RELAYER', (s) => s.relayer], ['STATUS', (s) => s.status], ['OUTCOME', (s) => s.outcome], ['CREATED', (s) => s.created_at],
    // A token transfer: the amount in the token's base units (exact), to whom, on which token contract.
    ['TOKEN TRANSFER', (s) => (s.token_transfer ? `${s.token_transfer.amount} to ${s.token_transfer.to} (token ${s.token_transfer.contract})` : null)],
    // The explorer link where the network has a known explorer, else the bare hash (last: the longest cell).
    ['TX (EXPLORER LINK)', (s) => s.explorer_url ?? s.tx_hash],
  ];

  protected useCase(): typeof ListSends {
    return ListSends;
  }
}
