import knexFactory, { type Knex } from 'knex';
import { InvalidInputError } from '../../domain/errors';
import type { CopiedTable, CopySource, CopyTarget, CopyWriter, StoredRow } from '../../application/ports/storage-copy';
import { reportStorageFailures } from '../knex';
import { openDatabase } from './open-database';

/** Bookkeeping of knex and SQLite, not data: every database has its own. */
const NOT_DATA = new Set(['knex_migrations', 'knex_migrations_lock', 'sqlite_sequence']);
/** Columns that hold wei as decimal text (CONTRACT 10: NUMERIC(78,0) on PostgreSQL), summed to verify a copy. */
const WEI_COLUMN = /(^|_)wei$|^amount$/;
/** PostgreSQL's wire protocol counts a statement's parameters in 16 bits. */
const PG_MAX_PARAMETERS = 65_535;

function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * A SQLite journal opened read-only (never migrated, never written: a copy leaves it as it was), read in one
 * transaction, so that every table is read at the same moment even while another process appends.
 */
export async function openSqliteCopySource(url: string): Promise<CopySource> {
  const filename = url.slice('sqlite:'.length);
  // knex opens SQLite read-write (it adds flags to OPEN_READWRITE): read-only is asked in the URI instead.
  const uri = `file:${encodeURI(filename).replace(/\?/g, '%3f').replace(/#/g, '%23')}?mode=ro`;
  const db = knexFactory({ client: 'sqlite3', connection: { filename: uri, flags: ['OPEN_URI'] }, useNullAsDefault: true, pool: { min: 1, max: 1 } });
  reportStorageFailures(db);
  let snapshot: Knex.Transaction;
  try {
    snapshot = await db.transaction();
    await snapshot.raw('select count(*) from sqlite_master');
  } catch (err) {
    await db.destroy();
    throw new InvalidInputError('from', `cannot read ${filename} as a SQLite journal (${err instanceof Error ? err.message : String(err)})`);
  }
  const keyOf = async (table: string): Promise<string[]> => {
    const info = (await snapshot.raw(`select name, pk from pragma_table_info(?) where pk > 0 order by pk`, [table])) as Array<{ name: string }>;
    return info.map((c) => c.name);
  };
  return {
    migrations: async () => {
      const has = await snapshot.raw(`select 1 from sqlite_master where type = 'table' and name = 'knex_migrations'`);
      if (!(has as unknown[]).length) throw new InvalidInputError('from', `${filename} is not a chainflow journal (no migrations table)`);
      return ((await snapshot('knex_migrations').select('name').orderBy('id')) as Array<{ name: string }>).map((r) => r.name);
    },
    tables: async () => {
      // rowid order of sqlite_master: the order the migrations created the tables in. There are no foreign keys
      // between them, so this order only keeps what was made first ahead of what was made from it.
      const names = ((await snapshot.raw(`select name from sqlite_master where type = 'table' order by rowid`)) as Array<{ name: string }>)
        .map((r) => r.name).filter((n) => !NOT_DATA.has(n) && !n.startsWith('sqlite_'));
      const tables: CopiedTable[] = [];
      for (const name of names) {
        // hidden 0: a stored column (2 and 3 are generated ones, which the target computes or renders itself).
        const columns = ((await snapshot.raw(`select name from pragma_table_xinfo(?) where hidden = 0 order by cid`, [name])) as Array<{ name: string }>).map((c) => c.name);
        tables.push({ name, columns, weiColumns: columns.filter((c) => WEI_COLUMN.test(c)) });
      }
      return tables;
    },
    count: async (table) => Number(((await snapshot(table).count({ n: '*' })) as Array<{ n: number }>)[0]!.n),
    rows: (table, batchSize) => keysetRows(snapshot, table, batchSize, keyOf),
    close: async () => {
      await snapshot.rollback().catch(() => undefined);
      await db.destroy();
    },
  };
}

/** A table's rows in batches, by its primary key (or rowid): each batch one indexed seek, whatever the table's size. */
async function* keysetRows(db: Knex.Transaction, table: CopiedTable, batchSize: number, keyOf: (t: string) => Promise<string[]>): AsyncIterable<StoredRow[]> {
  const primary = await keyOf(table.name);
  const key = primary.length ? primary : ['rowid'];
  const keyAlias = key.map((k, i) => (primary.length ? k : `__copy_key_${i}`));
  const select = [...table.columns.map(quote), ...(primary.length ? key.filter((k) => !table.columns.includes(k)).map(quote) : [`rowid as ${quote(keyAlias[0]!)}`])].join(', ');
  const order = key.map(quote).join(', ');
  let after: unknown[] | undefined;
  for (;;) {
    const where = after ? `where (${order}) > (${after.map(() => '?').join(', ')})` : '';
    const rows = (await db.raw(`select ${select} from ${quote(table.name)} ${where} order by ${order} limit ?`, [...(after ?? []), batchSize] as Knex.RawBinding[])) as StoredRow[];
    if (!rows.length) return;
    const last = rows[rows.length - 1]!;
    after = keyAlias.map((k) => last[k]);
    yield rows;
    if (rows.length < batchSize) return;
  }
}

/**
 * An empty PostgreSQL database as the copy's target: migrated (openDatabase runs the migrations, so a blank
 * database will do), written in one transaction.
 */
export async function openPostgresCopyTarget(url: string, password?: string): Promise<CopyTarget> {
  const db = await openDatabase(url, 'tool', password === undefined ? {} : { password });
  const pick = (columns: readonly string[], rows: readonly StoredRow[]): Record<string, unknown>[] =>
    rows.map((row) => Object.fromEntries(columns.map((c) => [c, row[c] ?? null])));
  const writer = (trx: Knex.Transaction): CopyWriter => ({
    insert: async (table, columns, rows) => {
      await trx(table).insert(pick(columns, rows));
    },
    replace: async (table, columns, rows) => {
      await trx(table).delete();
      if (rows.length) await trx(table).insert(pick(columns, rows));
    },
    finish: async (tables) => {
      // Serial ids were copied as they were: the sequence must continue after the largest, not collide with it.
      const serials = (await trx.raw(
        `select table_name, column_name, pg_get_serial_sequence(quote_ident(table_name), column_name) as seq from information_schema.columns
         where table_schema = current_schema() and column_default like 'nextval(%' and table_name = any(?)`, [tables as string[]],
      )).rows as Array<{ table_name: string; column_name: string; seq: string }>;
      for (const s of serials) {
        await trx.raw(`select setval(?, coalesce((select max(${quote(s.column_name)}) from ${quote(s.table_name)}), 0) + 1, false)`, [s.seq]);
      }
    },
  });
  return {
    migrations: async () => ((await db('knex_migrations').select('name').orderBy('id')) as Array<{ name: string }>).map((r) => r.name),
    // Generated columns (the stored items and lines, migrations 0025 and 0027) are PostgreSQL's to compute, never written.
    columnsOf: async (table) => {
      const rows = (await db.raw(`select column_name from information_schema.columns where table_schema = current_schema() and table_name = ? and is_generated = 'NEVER' order by ordinal_position`, [table])).rows as Array<{ column_name: string }>;
      return rows.length ? rows.map((r) => r.column_name) : undefined;
    },
    batchLimit: (columns) => Math.floor(PG_MAX_PARAMETERS / Math.max(1, columns)),
    count: async (table) => Number(((await db(table).count({ n: '*' })) as Array<{ n: string }>)[0]!.n),
    transaction: (work) => db.transaction((trx) => work(writer(trx))),
    weiSum: async (table, column) => {
      const row = (await db.raw(`select coalesce(sum(${quote(column)}::numeric), 0)::text as s from ${quote(table)}`)).rows[0] as { s: string };
      return BigInt(row.s);
    },
    close: () => db.destroy(),
  };
}
