import { Flags } from '@oclif/core';
import { openOutput } from '../../files';
import { ExportHistory, type ExportReport } from '../../../../application/history/export-history.use-case';
import { ChainflowCommand, toQuery } from '../../base.command';
import { RUN_FILTER_FLAG_NAMES, runFilterFlags } from '../../run-filter.flags';
import { StreamSink } from '../../../stream-sink';
import { Progress } from '../../progress';
import { limitHeap } from '../../heap-limit';

/**
 * The heap an export may fill before it is collected: the command's own (about 20 MB) and a few pages' worth. 34 MB
 * rather than 40 since the young generation is held at 16 MB (see limitHeap): same CPU, peaks ~6 MB lower.
 */
const EXPORT_HEAP_BYTES = 34 * 1024 * 1024;

/** `chainflow history export`: the redacted audit export, streamed to a file (or stdout). */
export default class HistoryExport extends ChainflowCommand {
  static override summary = 'Write the redacted audit export (json: runs, steps, sends, approvals, failures; csv: one row per run)';
  static override examples = ['<%= config.bin %> history export --workflow payouts --since 30d --format csv --out payouts.csv'];
  static override flags = {
    ...runFilterFlags,
    format: Flags.string({ description: 'json or csv', default: 'json' }),
    out: Flags.string({ description: 'file to write (default: standard output)' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(HistoryExport);
    const root = await this.root(flags.config, 'stream');
    const exporter = root.container.get(ExportHistory);
    const { filter, format } = exporter.parse(toQuery(flags, [...RUN_FILTER_FLAG_NAMES, 'format']));
    const out = flags.out ? openOutput(flags.out) : process.stdout;
    const sink = new StreamSink(out);
    const unlimit = limitHeap(EXPORT_HEAP_BYTES);
    const report = await Progress.around(Progress.open({ stdoutBusy: !flags.out }), (progress) =>
      exporter.execute(filter, format, sink, progress && ((r: ExportReport) => progress.update('exporting', exported(r), 'records'))))
      .finally(unlimit);
    if (flags.out) {
      await sink.end();
      this.log(`exported ${report.runs} runs${format === 'json' ? `, ${report.steps} steps, ${report.sends} sends, ${report.approvals} approvals, ${report.failures} failures` : ''} to ${flags.out}`);
    } else {
      await sink.flush();
    }
  }
}

/** Records written so far: runs, steps, sends, approvals and failures. */
export function exported(r: ExportReport): number {
  return r.runs + r.steps + r.sends + r.approvals + r.failures;
}
