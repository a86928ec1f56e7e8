import { Flags } from '@oclif/core';
import { ListRuns } from '../../../../application/history/list-runs.use-case';
import { ChainflowCommand, listFlags, toQuery } from '../../base.command';
import { humanDuration, nextPageHint, renderTable } from '../../table';

const FILTER_FLAGS = [
  'workflow', 'status', 'trigger', 'network', 'contract', 'relayer', 'tx-hash', 'block', 'run-id', 'step-id',
  'error-kind', 'approval-status', 'session', 'since', 'until', 'limit', 'cursor',
] as const;

/** `chainflow history` (also `chainflow history runs`): list runs, newest first, with every run filter. */
export default class History extends ChainflowCommand {
  static override summary = 'List runs, newest first';
  static override examples = ['<%= config.bin %> history --status failed --since 24h', '<%= config.bin %> history --workflow payouts --json'];
  static override flags = {
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
    since: Flags.string({ description: 'duration back from now (24h, 7d) or RFC 3339 time' }),
    until: Flags.string({ description: 'duration back from now or RFC 3339 time' }),
    ...listFlags,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(this.constructor as typeof History);
    const root = await this.root(flags.config);
    const page = await root.container.get(ListRuns).execute(toQuery(flags, FILTER_FLAGS));
    if (flags.json) {
      this.log(JSON.stringify(page, null, 2));
      return;
    }
    if (!page.items.length) {
      this.log('no runs');
      return;
    }
    this.log(renderTable(
      ['RUN', 'WORKFLOW', 'STATUS', 'TRIGGER', 'SESSION', 'NETWORK', 'ERROR', 'CREATED', 'DURATION'],
      page.items.map((r) => [r.run_id, r.workflow, r.status, r.trigger, r.session, r.network, r.error_kind, r.created_at, humanDuration(r.duration_ms)]),
    ));
    const hint = nextPageHint(page.cursor);
    if (hint) this.log(hint);
  }
}
