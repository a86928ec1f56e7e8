import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Args } from '@oclif/core';
import { ImportJournal, ImportRejectedError, type ImportProgress } from '../../../../application/journal/import-journal.use-case';
import { SettlePendingReceipts } from '../../../../application/spend/settle-pending-receipts.use-case';
import { ndjsonFile } from '../../../ndjson-file';
import { ChainflowCommand, EXIT_FAILURE } from '../../base.command';
import { checkInput } from '../../files';
import { Progress } from '../../progress';

/** `chainflow journal import FILE|-`: validate every line, then import all of it or nothing. */
export default class JournalImport extends ChainflowCommand {
  static override summary = 'Import journal events from NDJSON (one event a line; - reads stdin)';
  static override args = { file: Args.string({ required: true, description: 'NDJSON file, or - for standard input' }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(JournalImport);
    let spool: string | undefined;
    let path = args.file;
    if (path !== '-') checkInput(path); // a missing file is named before the storage is opened
    if (path === '-') {
      // Standard input is read twice (validation, then import), so it is spooled to a private temp file.
      spool = mkdtempSync(join(tmpdir(), 'chainflow-import-'));
      path = join(spool, 'stdin.ndjson');
      await pipeline(process.stdin, createWriteStream(path));
    }
    try {
      const root = await this.root(flags.config);
      const report = await Progress.around(Progress.open(), (progress) =>
        root.container.get(ImportJournal).execute(ndjsonFile(path), progress && ((p: ImportProgress) => {
          if (p.phase === 'validate') progress.update('validating', p.lines, 'lines');
          else progress.update('importing', p.events, 'events', p.total);
        })));
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
