import { Flags } from '@oclif/core';
import { TopUpRelayer } from '../../../../application/relayers/top-up-relayer.use-case';
import type { TopupItem } from '../../../../application/relayers/relayer-items';
import { ChainflowCommand, EXIT_FAILURE } from '../../base.command';
import { terminalSafe } from '../../table';
import { osUser } from '../run';
import { NativeUnits } from './native-units';

/** `chainflow relayers topup --from A --to B --amount 0.5ether [--by NAME]`: a signed transfer, recorded in the ledger and the audit trail. */
export default class RelayersTopup extends ChainflowCommand {
  static override summary = 'Fund a relayer from another relayer on the same network (a signed transfer; recorded in the spend ledger and the top-up audit trail)';
  static override examples = [
    '<%= config.bin %> relayers topup --from ops --to keeper --amount 0.5ether',
    '<%= config.bin %> relayers topup --from treasury --to ops --amount "250000000000000000" --by alice --wait 5m',
  ];
  static override flags = {
    from: Flags.string({ required: true, description: 'the funding relayer (pays the amount and the gas)' }),
    to: Flags.string({ required: true, description: 'the relayer funded' }),
    amount: Flags.string({ required: true, description: 'integer wei, or <decimal> wei|gwei|ether (0.5ether, "0.5 ether")' }),
    by: Flags.string({ description: 'who asks (default: the OS user)' }),
    wait: Flags.string({ description: 'how long to wait for the receipt (default 2m, at most 1h)' }),
    json: Flags.boolean({ description: 'print the audit row as JSON' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(RelayersTopup);
    const root = await this.root(flags.config);
    const item = await root.container.get(TopUpRelayer).execute({
      from: flags.from, to: flags.to, amount: flags.amount, by: flags.by ?? osUser(), ...(flags.wait !== undefined ? { wait: flags.wait } : {}),
    });
    const units = new NativeUnits();
    units.load(root.config);
    this.log(flags.json ? JSON.stringify(item, null, 2) : describe(item, units));
    if (item.outcome !== 'confirmed' && item.outcome !== 'submitted') {
      if (!flags.json) process.stderr.write(`Error: top-up ${item.topup_id} ${item.outcome}: ${terminalSafe(item.error ?? 'no detail')}\n`);
      process.exitCode = EXIT_FAILURE;
    }
  }
}

function describe(t: TopupItem, units: NativeUnits): string {
  const lines = [`top-up ${t.topup_id} ${t.outcome}: ${units.format(t.amount_wei, t.network)} from ${t.from} to ${t.to} (${t.to_address}) on ${t.network}`];
  if (t.tx_hash) lines.push(`tx ${t.tx_hash}${t.explorer_url ? ` ${t.explorer_url}` : ''}`);
  if (t.outcome === 'submitted' && t.error) lines.push(t.error);
  return lines.map(terminalSafe).join('\n');
}
