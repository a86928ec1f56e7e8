import { Flags } from '@oclif/core';
import type { ChainflowConfig } from '../../../../application/config';
import { ListRelayers } from '../../../../application/relayers/list-relayers.use-case';
import type { RelayerItem } from '../../../../application/relayers/relayer-items';
import { listFlags } from '../../base.command';
import { ListCommand, type Column } from '../../list.command';
import { NativeUnits } from './native-units';

/** `chainflow relayers`: the address book, with live balances and the funding plan (CONTRACT 9). */
export default class Relayers extends ListCommand<RelayerItem> {
  static override summary = 'The relayers: address, live balance, low-balance flag, recent gas spend (7d), funding estimate (next 7d) and shortfall';
  static override examples = ['<%= config.bin %> relayers', '<%= config.bin %> relayers --network sepolia --json'];
  static override flags = {
    network: Flags.string({ description: 'only the relayers of this network' }),
    ...listFlags,
  };

  private readonly units = new NativeUnits();
  protected readonly queryFlags = ['network'];
  protected readonly empty = 'no relayers configured';
  protected readonly columns: readonly Column<RelayerItem>[] = [
    ['RELAYER', (r) => r.relayer],
    ['NETWORK', (r) => r.network],
    ['ADDRESS', (r) => r.address],
    // An unreadable balance says why, in one line (never a provider URL).
    ['BALANCE', (r) => (r.balance_wei === null ? `unavailable: ${r.balance_error ?? 'not read'}` : this.units.format(r.balance_wei, r.network))],
    ['LOW', (r) => r.low_balance],
    ['THRESHOLD', (r) => this.units.format(r.low_balance_threshold_wei, r.network)],
    ['GAS (7D)', (r) => this.units.format(r.recent_gas_spend_wei, r.network)],
    ['ESTIMATE (NEXT 7D)', (r) => this.units.format(r.funding_estimate_wei, r.network)],
    ['SHORTFALL', (r) => this.units.format(r.shortfall_wei, r.network)],
  ];

  protected override prepare(config: ChainflowConfig): void {
    this.units.load(config);
  }

  protected useCase(): typeof ListRelayers {
    return ListRelayers;
  }
}
