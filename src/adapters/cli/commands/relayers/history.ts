import { Flags } from '@oclif/core';
import type { ChainflowConfig } from '../../../../application/config';
import { ListTopups } from '../../../../application/relayers/list-topups.use-case';
import type { TopupItem } from '../../../../application/relayers/relayer-items';
import { listFlags } from '../../base.command';
import { ListCommand, type Column } from '../../list.command';
import { NativeUnits } from './native-units';

/** `chainflow relayers history`: the operator audit trail of top-ups, every attempt, newest first. */
export default class RelayersHistory extends ListCommand<TopupItem> {
  static override summary = 'Top-ups of relayers, every attempt (landed or not), newest first';
  static override examples = ['<%= config.bin %> relayers history', '<%= config.bin %> relayers history --from ops --outcome failed --since 7d'];
  static override flags = {
    from: Flags.string({ description: 'funding relayer' }),
    to: Flags.string({ description: 'relayer funded' }),
    network: Flags.string({ description: 'network name' }),
    outcome: Flags.string({ description: 'pending, confirmed, reverted, submitted, failed or unknown' }),
    by: Flags.string({ description: 'who asked for the top-up' }),
    since: Flags.string({ description: 'duration back from now (24h, 7d) or RFC 3339 time' }),
    until: Flags.string({ description: 'duration back from now or RFC 3339 time' }),
    ...listFlags,
  };

  private readonly units = new NativeUnits();
  protected readonly queryFlags = ['from', 'to', 'network', 'outcome', 'by', 'since', 'until'];
  protected readonly empty = 'no top-ups';
  protected readonly columns: readonly Column<TopupItem>[] = [
    ['AT', (t) => t.at], ['TOP-UP', (t) => t.topup_id], ['BY', (t) => t.by], ['FROM', (t) => t.from], ['TO', (t) => t.to],
    ['NETWORK', (t) => t.network], ['AMOUNT', (t) => this.units.format(t.amount_wei, t.network)], ['OUTCOME', (t) => t.outcome],
    ['TX HASH', (t) => t.tx_hash], ['ERROR', (t) => t.error],
  ];

  protected override prepare(config: ChainflowConfig): void {
    this.units.load(config);
  }

  protected useCase(): typeof ListTopups {
    return ListTopups;
  }
}
