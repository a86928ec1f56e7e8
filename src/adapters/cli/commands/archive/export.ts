import { Flags } from '@oclif/core';
import { openOutput } from '../../files';
import { ArchiveExport } from '../../../../application/history/archive-export.use-case';
import { cutOf } from '../../../../application/history/prune-history.use-case';
import { StreamSink } from '../../../stream-sink';
import { ChainflowCommand } from '../../base.command';
import { Progress } from '../../progress';
import { exported } from '../history/export';

/** `chainflow archive export --older-than <d> --out FILE`: keep what retention would remove, redacted. */
export default class ArchiveExportCommand extends ChainflowCommand {
  static override summary = 'Write the runs older than a duration to a file, in the redacted export shape, before retention';
  static override examples = ['<%= config.bin %> archive export --older-than 90d --out archive-2026-q3.json'];
  static override flags = {
    'older-than': Flags.string({ description: 'runs created more than this long ago (e.g. 90d)', required: true }),
    out: Flags.string({ description: 'file to write', required: true }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ArchiveExportCommand);
    const root = await this.root(flags.config);
    const archive = root.container.get(ArchiveExport);
    cutOf(flags['older-than'], Date.now()); // a bad duration is refused before the file is created
    const sink = new StreamSink(openOutput(flags.out));
    const report = await Progress.around(Progress.open(), (progress) =>
      archive.execute(flags['older-than'], sink, progress && ((r) => progress.update('archiving', exported(r), 'records'))));
    await sink.end();
    this.log(`archived ${report.runs} runs created before ${report.cut} (${report.steps} steps, ${report.sends} sends, ` +
      `${report.approvals} approvals, ${report.failures} failures) to ${flags.out}`);
  }
}
