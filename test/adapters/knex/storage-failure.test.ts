/** Which storage failures the engine tries again (CONTRACT 8.7): a locked or unreachable database, not a refused statement. */
import { toStorageError } from '../../../src/adapters/knex/storage-failure';

const driverError = (code: string, name = 'Error'): Error => Object.assign(new Error(`${code}: details with a value 'secret'`), { code, name });

describe('toStorageError', () => {
  it.each([
    ['SQLITE_BUSY'], ['SQLITE_BUSY_SNAPSHOT'], ['SQLITE_LOCKED'], ['SQLITE_IOERR'], ['ECONNREFUSED'], ['ETIMEDOUT'], ['08006'], ['40001'], ['57P01'], ['53300'],
  ])('%s (the database locked, unreachable or busy) is transient', (code) => {
    const err = toStorageError(driverError(code), 'insert into events');
    expect(err).toMatchObject({ transient: true, driverCode: code });
    expect(err.message).not.toContain('secret');
  });

  it.each([['SQLITE_CONSTRAINT'], ['SQLITE_FULL'], ['SQLITE_CORRUPT'], ['23505'], ['42P01']])('%s (a refused statement, a broken database) is not', (code) => {
    expect(toStorageError(driverError(code), 'insert into events').transient).toBe(false);
  });

  it('a pool that gave no connection in time is transient', () => {
    expect(toStorageError(Object.assign(new Error('Knex: Timeout acquiring a connection'), { name: 'KnexTimeoutError' }), 'connecting to the database').transient).toBe(true);
  });
});
