import { inject, injectable } from 'inversify';
import type { Knex } from 'knex';
import type { NamedBearer } from '../../domain/bearer-token';
import type { BearerRepository } from '../../application/ports/bearer-repository';
import { Database } from './knex-journal.writer';

type Row = Record<string, unknown>;
const FIND_BY_HASH = 'SELECT name, token_hash, created_at, last_used_at, revoked_at FROM bearers WHERE token_hash = ? LIMIT 1';
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toBearer(row: Row): NamedBearer {
  return {
    name: String(row.name), tokenHash: String(row.token_hash), createdAt: Number(row.created_at),
    lastUsedAt: numOrNull(row.last_used_at), revokedAt: numOrNull(row.revoked_at),
  };
}

/** Named bearers in the `bearers` table (migration 0003), looked up by the SHA-256 of the token. */
@injectable()
export class KnexBearerRepository implements BearerRepository {
  constructor(@inject(Database) private readonly db: Knex) {}

  async add(b: NamedBearer): Promise<boolean> {
    const inserted = await this.db.raw(
      'INSERT INTO bearers (name, token_hash, created_at, last_used_at, revoked_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING name',
      [b.name, b.tokenHash, b.createdAt, b.lastUsedAt, b.revokedAt],
    );
    return (Array.isArray(inserted) ? inserted : inserted.rows).length === 1;
  }

  async revoke(name: string, at: number): Promise<boolean> {
    return (await this.db('bearers').where({ name }).whereNull('revoked_at').update({ revoked_at: at })) === 1;
  }

  async list(): Promise<NamedBearer[]> {
    return (await this.db('bearers').orderBy('name')).map(toBearer);
  }

  /** On every authenticated request: a prepared-once raw query (the query builder alone cost ~0.2 ms). */
  async findByHash(tokenHash: string): Promise<NamedBearer | undefined> {
    const result = await this.db.raw(FIND_BY_HASH, [tokenHash]);
    const row = (Array.isArray(result) ? result : result.rows)[0] as Row | undefined;
    return row ? toBearer(row) : undefined;
  }

  async touch(name: string, at: number): Promise<void> {
    await this.db('bearers').where({ name }).update({ last_used_at: at });
  }
}
