/**
 * PgWriteBatch on a real PostgreSQL: the journal writer's writes of a group sent as one statement (data-modifying
 * CTEs). What the batch holds is written, all of it, when sent or before a read; a batch past its bindings' bound is
 * sent as several statements; and a key taken among its writes is reported as the events' key, which the journal
 * writer's retry of a stream conflict knows (isStreamConflict).
 */
import type { Knex } from 'knex';
import { isStreamConflict } from '../../../src/adapters/knex/storage-failure';
import { PgWriteBatch } from '../../../src/adapters/postgres/pg-write-batch';
import { postgresDialect } from '../../../src/adapters/postgres/postgres-dialect';
import { StorageError } from '../../../src/domain/errors';
import { eachFreshDb, freshPostgresStore } from '../../support/stores';

const event = (stream: string, seq: number): (string | number)[] => [stream, seq, `h${stream}${seq}`, 'run.conditions', 0, '{}'];
const INSERT_EVENT = 'INSERT INTO events ("stream","seq","hash","type","at","body") VALUES (?,?,?,?,?,?)';

describe('PgWriteBatch', () => {
  const store = eachFreshDb(freshPostgresStore);

  const count = async (trx: Knex | Knex.Transaction, sql: string): Promise<number> => Number(((await trx.raw(sql)) as { rows: { n: string }[] }).rows[0]!.n);

  it('writes nothing until sent or read, then every write it holds; many bindings go as several statements', async () => {
    await store.db.transaction(async (trx) => {
      const batch = new PgWriteBatch(trx, postgresDialect);
      // 2 × 6,000 rows of 6 bindings: 72,000 bindings, past one statement's bound.
      for (const part of [0, 1]) {
        const rows = Array.from({ length: 6000 }, (_, i) => event(`s${part}`, i + 1));
        for (let i = 0; i < rows.length; i += 1000) {
          const chunk = rows.slice(i, i + 1000);
          batch.write(`INSERT INTO events ("stream","seq","hash","type","at","body") VALUES ${chunk.map(() => '(?,?,?,?,?,?)').join(',')}`, chunk.flat());
        }
      }
      batch.write('INSERT INTO engine_cron (workflow, next_at) VALUES (?, ?)', ['wf', 5]);
      expect(await count(trx, 'SELECT count(*) AS n FROM events')).toBe(0);
      const sent: string[] = [];
      const listen = (q: { sql: string }): void => void (q.sql.includes('INSERT INTO') && sent.push(q.sql));
      store.db.on('query', listen);
      const rows = await batch.select('SELECT count(*) AS n FROM events', []);
      store.db.off('query', listen);
      expect(Number(rows[0]!.n)).toBe(12_000);
      // 13 writes: five of 6,000 bindings to a statement (30,000 at most), the last with the cron row.
      expect(sent.map((sql) => sql.split('INSERT INTO').length - 1)).toEqual([5, 5, 3]);
      batch.write('UPDATE engine_cron SET next_at = ? WHERE workflow = ?', [9, 'wf']);
      await batch.send();
      expect(await count(trx, 'SELECT next_at AS n FROM engine_cron')).toBe(9);
    });
    expect(await count(store.db, 'SELECT count(*) AS n FROM events')).toBe(12_000);
  });

  it('runs its writes in the order they were written, each with its own bindings', async () => {
    await store.db.transaction(async (trx) => {
      await trx.raw('CREATE TEMP TABLE seen (id serial, tag text, a int, b int)');
      const batch = new PgWriteBatch(trx, postgresDialect);
      batch.write("INSERT INTO seen (tag) VALUES ('first')");
      batch.write('INSERT INTO seen (tag, a) VALUES (?, ?)', ['second', 2]);
      batch.write('INSERT INTO seen (tag, a, b) VALUES (?, ?, ?), (?, ?, ?)', ['third', 3, 30, 'fourth', 4, 40]);
      batch.write('INSERT INTO seen (tag) VALUES (?)', ['last']);
      await batch.send();
      const rows = ((await trx.raw('SELECT tag, a, b FROM seen ORDER BY id')) as { rows: unknown[] }).rows;
      expect(rows).toEqual([
        { tag: 'first', a: null, b: null }, { tag: 'second', a: 2, b: null }, { tag: 'third', a: 3, b: 30 },
        { tag: 'fourth', a: 4, b: 40 }, { tag: 'last', a: null, b: null },
      ]);
    });
  });

  it("a key taken among its writes is the events' key, a stream conflict; the transaction keeps nothing", async () => {
    await store.db.raw(INSERT_EVENT, event('s', 1));
    const failed = await store.db.transaction(async (trx) => {
      const batch = new PgWriteBatch(trx, postgresDialect);
      batch.write('INSERT INTO engine_cron (workflow, next_at) VALUES (?, ?) ON CONFLICT (workflow) DO NOTHING', ['wf', 5]);
      batch.write(INSERT_EVENT, event('s', 1));
      await batch.send();
    }).then(() => undefined, (err: unknown) => err);
    expect(failed).toBeInstanceOf(StorageError);
    expect(failed).toMatchObject({ operation: 'insert into events', driverCode: '23505' });
    expect(isStreamConflict(failed)).toBe(true);
    expect(await count(store.db, 'SELECT count(*) AS n FROM engine_cron')).toBe(0);
  });

  it('another failure names the statements it held, and is no stream conflict', async () => {
    const failed = await store.db.transaction(async (trx) => {
      const batch = new PgWriteBatch(trx, postgresDialect);
      batch.write(INSERT_EVENT, event('s', 1));
      batch.write('UPDATE engine_cron SET next_at = ? WHERE workflow = ?', ['not a number', 'wf']);
      await batch.send();
    }).then(() => undefined, (err: unknown) => err);
    expect(failed).toMatchObject({ operation: 'insert into events, update of engine_cron', driverCode: '22P02' });
    expect(isStreamConflict(failed)).toBe(false);
    expect(await count(store.db, 'SELECT count(*) AS n FROM events')).toBe(0);
  });
});
