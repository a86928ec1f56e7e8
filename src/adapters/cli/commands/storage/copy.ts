import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Flags } from '@oclif/core';
import type { CopyReport } from '../../../../application/storage/copy-storage.use-case';
import { InvalidInputError } from '../../../../domain/errors';
import { ChainflowCommand, EXIT_FAILURE } from '../../base.command';
import { Progress } from '../../progress';
import { renderTable } from '../../table';

/**
 * `chainflow storage copy --from sqlite:PATH --to postgres://…`: an existing SQLite journal into an empty PostgreSQL
 * database (issue #29, part 6), verified by counts and wei sums per table; exit 1 on any difference.
 */
export default class StorageCopyCommand extends ChainflowCommand {
  static override summary = 'Copy a SQLite journal into an empty PostgreSQL database, verified by row counts and wei sums';
  static override description = 'Stop the processes that write the SQLite file first: what they write after the copy starts is not copied. '
    + 'The SQLite file is opened read-only. The copy is one transaction: a failed copy leaves the target empty.';
  static override flags = {
    from: Flags.string({ required: true, description: 'the journal to copy: sqlite:PATH' }),
    to: Flags.string({ required: true, description: 'an empty PostgreSQL database: postgres://user@host:port/db (no password in it)' }),
    'to-password-env': Flags.string({ description: 'environment variable holding the PostgreSQL password (default: PGPASSWORD, ~/.pgpass)' }),
    'batch-size': Flags.integer({ description: 'rows per read and per insert (default 2000)', min: 1, max: 100_000 }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(StorageCopyCommand);
    const from = sourceUrl(flags.from);
    const to = targetUrl(flags.to);
    const variable = flags['to-password-env'];
    const password = variable === undefined ? undefined : process.env[variable];
    if (variable !== undefined && !password) throw new InvalidInputError('to-password-env', `environment variable ${variable} is not set`);
    const copy = await this.storageCopy(from, to, password);
    const started = performance.now();
    let report: CopyReport;
    try {
      report = await Progress.around(Progress.open(), (progress) => copy.copy.execute(copy.source, copy.target, {
        ...(flags['batch-size'] ? { batchSize: flags['batch-size'] } : {}),
        ...(progress ? { onProgress: (p) => progress.update('copying', p.rows, 'rows', p.total) } : {}),
      }));
    } finally {
      await copy.close();
    }
    const seconds = (performance.now() - started) / 1000;
    this.log(renderTable(['table', 'source rows', 'target rows', 'wei sums (source / target)', ''], report.tables.map((t) => [
      t.table, t.sourceRows, t.targetRows,
      t.sums.map((s) => `${s.column} ${s.source} / ${s.target}`).join(', ') || '-',
      t.sourceRows === t.targetRows && t.sums.every((s) => s.source === s.target) ? 'ok' : 'MISMATCH',
    ])));
    if (report.skipped.length) this.log(`not in the target's schema, not copied: ${report.skipped.join(', ')}`);
    const rate = seconds > 0 ? Math.round(report.rows / seconds) : report.rows;
    this.log(`copied ${report.rows.toLocaleString('en-US')} rows of ${report.tables.length} tables in ${seconds.toFixed(1)} s (${rate.toLocaleString('en-US')} rows/s)`);
    if (report.verified) {
      this.log('verified: every table has as many rows on both ends, and every wei column the same sum');
      return;
    }
    const differ = report.tables.filter((t) => t.sourceRows !== t.targetRows || t.sums.some((s) => s.source !== s.target)).map((t) => t.table);
    process.stderr.write(`Error: copy not verified: counts or wei sums differ in ${differ.join(', ')}\n`);
    process.exitCode = EXIT_FAILURE;
    return this.exit(EXIT_FAILURE);
  }
}

/** `sqlite:PATH` of an existing file (relative to the working directory). */
function sourceUrl(from: string): string {
  if (!from.startsWith('sqlite:') || from.length === 'sqlite:'.length) throw new InvalidInputError('from', 'must be sqlite:PATH (the journal to copy)');
  const file = resolve(from.slice('sqlite:'.length));
  if (!existsSync(file)) throw new InvalidInputError('from', `${file}: no such file`);
  return `sqlite:${file}`;
}

/** `postgres://…` without a password: like storage.url, the password comes from the environment, never the literal. */
function targetUrl(to: string): string {
  if (!/^postgres(ql)?:\/\//.test(to)) throw new InvalidInputError('to', 'must be postgres://user@host:port/db (the copy goes into PostgreSQL)');
  let password = '';
  try {
    password = new URL(to).password;
  } catch {
    throw new InvalidInputError('to', 'is not a URL: postgres://user@host:port/db');
  }
  if (password) throw new InvalidInputError('to', 'must not hold a password: give it through --to-password-env NAME or PGPASSWORD');
  return to;
}
