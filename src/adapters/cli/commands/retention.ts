import { Flags } from '@oclif/core';
import { PruneHistory } from '../../../application/history/prune-history.use-case';
import { ChainflowCommand } from '../base.command';
import { Progress } from '../progress';

/** `chainflow retention --older-than <d> [--dry-run]`: bound the journal, on request only. */
export default class Retention extends ChainflowCommand {
  static override summary = 'Remove runs older than a duration, with their steps, sends and approvals (never the spend ledger)';
  static override examples = ['<%= config.bin %> retention --older-than 90d --dry-run', '<%= config.bin %> retention --older-than 90d'];
  static override flags = {
    'older-than': Flags.string({ description: 'remove runs created more than this long ago (e.g. 90d)', required: true }),
    'dry-run': Flags.boolean({ description: 'only count what would be removed' }),
    json: Flags.boolean({ description: 'print the report as JSON' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Retention);
    const root = await this.root(flags.config);
    const report = await Progress.around(Progress.open({ json: flags.json }), (progress) =>
      root.container.get(PruneHistory).execute(flags['older-than'], flags['dry-run'], progress && ((done, steps) => progress.update('removing', done, 'tables', steps))));
    if (flags.json) {
      this.log(JSON.stringify(report, null, 2));
      return;
    }
    const verb = report.dry_run ? 'would remove' : 'removed';
    this.log(`${verb} ${report.runs} runs created before ${report.cut}: ${report.events} events, ${report.sends} sends, ` +
      `${report.approvals} approvals, ${report.reorgs} reorg responses (spend ledger untouched)`);
  }
}
