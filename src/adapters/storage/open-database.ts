import type { Knex } from 'knex';
import { StorageError } from '../../domain/errors';
import type { OpenOptions, StorageProfile } from '../knex';
import { openPostgres } from '../postgres';
import { openSqlite } from '../sqlite';

/**
 * Opens the storage named by `url` by its technology (`sqlite:<absolute path>`: adapters/sqlite; `postgres://…`:
 * adapters/postgres), migrated, its dialect given to the handle for the knex repositories (dialectOf).
 */
export async function openDatabase(url: string, profile: StorageProfile = 'tool', options: OpenOptions = {}): Promise<Knex> {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length), profile, options);
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgres(url, profile, options);
  throw new StorageError('opening the database (storage.url)', 'unsupported storage url (expected sqlite:PATH or postgres://…)');
}
