import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Args } from '@oclif/core';
import { ImportJournal, ImportRejectedError, type ImportProgress } from '../../../../application/journal/import-journal.use-case';
import { SettlePendingReceipts } from '../../../../application/spend/settle-pending-receipts.use-case';
import { countLines, ndjsonFile } from '../../../ndjson-file';
import { ChainflowCommand, EXIT_FAILURE } from '../../base.command';
import { checkInput } from '../../files';
import { Progress } from '../../progress';

/** `chainflow journal import FILE|-`: import all of it or nothing (every bad line named). */
export default class JournalImport extends ChainflowCommand {
  static override summary = 'Import journal events from NDJSON (one event a line; - reads stdin)';
  static override args = { file: Args.string({ required: true, description: 'NDJSON file, or - for standard input' }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(JournalImport);
    let spool: string | undefined;
    let path = args.file;
    if (path !== '-') checkInput(path); // a missing file is named before the storage is opened
    if (path === '-') {
      // A refused import reads its input again (to name every bad line), so standard input is spooled to a private temp file.
      spool = mkdtempSync(join(tmpdir(), 'chainflow-import-'));
      path = join(spool, 'stdin.ndjson');
      await pipeline(process.stdin, createWriteStream(path));
    }
    try {
      const root = await this.root(flags.config);
      const report = await Progress.around(Progress.open(), (progress) => {
        // Only when a bar is drawn: the file's lines counted ahead (a byte scan) are the bar's total.
        const total = progress && countLines(path);
        return root.container.get(ImportJournal).execute(ndjsonFile(path), progress && ((p: ImportProgress) => progress.update('importing', p.lines, 'lines', total)));
      });
      this.log(`imported ${report.applied} events (${report.duplicates} already present) from ${report.lines} lines`);
      // Landed sends whose journaled receipt had no gas numbers: one receipt read each for the spend ledger.
      const spend = await root.container.get(SettlePendingReceipts).drain();
      if (spend.recorded || spend.gaps) {
        this.log(`spend ledger: ${spend.recorded} entries from receipt reads, ${spend.gaps} receipt reads failed (no entry)`);
      }
    } catch (err) {
      if (err instanceof ImportRejectedError) {
        process.stderr.write(`${err.message}\nnothing imported\n`);
        process.exitCode = EXIT_FAILURE;
        return this.exit(EXIT_FAILURE);
      }
      throw err;
    } finally {
      if (spool) rmSync(spool, { recursive: true, force: true });
    }
  }
}
