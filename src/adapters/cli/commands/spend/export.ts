import { Flags } from '@oclif/core';
import { openOutput } from '../../files';
import { ExportSpend } from '../../../../application/spend/export-spend.use-case';
import { SPEND_CSV_COLUMNS } from '../../../../application/spend/spend-items';
import { StreamSink } from '../../../stream-sink';
import { ChainflowCommand, toQuery } from '../../base.command';
import { Progress } from '../../progress';
import { SPEND_FILTER_FLAGS, SPEND_FILTER_NAMES } from './index';

/** `chainflow spend export`: the raw ledger entries, oldest first, as CSV (the stable columns) or `{ "entries": [...] }`. */
export default class SpendExport extends ChainflowCommand {
  static override summary = 'Write the spend ledger entries, oldest first (csv: the stable columns recorded_at … step_run_id; json: { "entries": [...] })';
  static override description = `CSV columns, in this order (a stable contract): ${SPEND_CSV_COLUMNS.join(', ')}. Amounts are exact wei.`;
  static override examples = ['<%= config.bin %> spend export --format csv --since 30d > spend.csv'];
  static override flags = {
    ...SPEND_FILTER_FLAGS,
    format: Flags.string({ description: 'csv or json', default: 'csv' }),
    out: Flags.string({ description: 'file to write (default: standard output)' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(SpendExport);
    const root = await this.root(flags.config);
    const exporter = root.container.get(ExportSpend);
    const { filter, format } = exporter.parse(toQuery(flags, [...SPEND_FILTER_NAMES, 'format']));
    const sink = new StreamSink(flags.out ? openOutput(flags.out) : process.stdout);
    const count = await Progress.around(Progress.open({ stdoutBusy: !flags.out }), (progress) =>
      exporter.execute(filter, format, sink, progress && ((n) => progress.update('exporting', n, 'ledger entries'))));
    if (flags.out) {
      await sink.end();
      this.log(`exported ${count} ledger entries to ${flags.out}`);
    } else {
      await sink.flush();
    }
  }
}
