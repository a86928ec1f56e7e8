import { Flags } from '@oclif/core';
import { ListConfiguredWorkflows } from '../../../../application/engine/workflow-controls.use-case';
import { ChainflowCommand } from '../../base.command';
import { renderTable } from '../../table';

/** `chainflow workflows [--json]`: the configured workflows. */
export default class Workflows extends ChainflowCommand {
  static override summary = 'List the configured workflows: trigger, paused, next cron tick, event cursor / head / lag, lease holders';
  static override flags = { json: Flags.boolean({ description: 'print { items, cursor, has_more }' }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(Workflows);
    const root = await this.root(flags.config);
    const page = await root.container.get(ListConfiguredWorkflows).execute();
    if (flags.json) {
      this.log(JSON.stringify(page, null, 2));
      return;
    }
    if (!page.items.length) {
      this.log('no workflows configured');
      return;
    }
    this.log(renderTable(
      ['WORKFLOW', 'TRIGGER', 'PAUSED', 'NEXT TICK', 'CURSOR / HEAD', 'LAG', 'LEASES', 'STEPS'],
      page.items.map((w) => [
        w.workflow, w.schedule ? `cron ${w.schedule}` : w.network ? `${w.trigger} on ${w.network}` : w.trigger, w.paused ? 'yes' : 'no', w.next_tick_at,
        w.cursor_block === null && w.head_block === null ? null : `${w.cursor_block ?? '-'} / ${w.head_block ?? '-'}`, w.lag_blocks,
        w.lease_holders, w.steps.join(' '),
      ]),
    ));
  }
}
