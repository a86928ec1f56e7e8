/**
 * The BearerRepository port's contract (CONTRACT section 5: named bearers, stored hashed, revocable, names
 * never reused), run against the in-memory fake and the knex adapter on a temp SQLite file and on PostgreSQL.
 */
import { KnexBearerRepository } from '../../src/adapters/knex/knex-bearer.repository';
import type { BearerRepository } from '../../src/application/ports/bearer-repository';
import { tokenHash, type NamedBearer } from '../../src/domain/bearer-token';
import { InMemoryBearers } from '../fakes/in-memory-bearers';
import { KNEX_STORES } from '../support/stores';

interface Subject {
  readonly repo: BearerRepository;
  close(): Promise<void>;
}

const T = Date.parse('2026-03-01T12:00:00.000Z');
const aBearer = (name: string, token = `cf_token-of-${name}`, createdAt = T): NamedBearer =>
  ({ name, tokenHash: tokenHash(token), createdAt, lastUsedAt: null, revokedAt: null });

function bearerContract(label: string, open: () => Promise<Subject>): void {
  describe(`BearerRepository contract: ${label}`, () => {
    let subject: Subject;
    let repo: BearerRepository;
    beforeEach(async () => {
      subject = await open();
      repo = subject.repo;
    });
    afterEach(() => subject.close());

    it('adds a bearer and finds it by the hash of its token, with every field', async () => {
      expect(await repo.add(aBearer('ci'))).toBe(true);
      expect(await repo.findByHash(tokenHash('cf_token-of-ci'))).toEqual({
        name: 'ci', tokenHash: tokenHash('cf_token-of-ci'), createdAt: T, lastUsedAt: null, revokedAt: null,
      });
      expect(await repo.findByHash(tokenHash('cf_some-other-token'))).toBeUndefined();
    });

    it('refuses a second bearer of the same name (false), keeping the first', async () => {
      expect(await repo.add(aBearer('ci', 'cf_first'))).toBe(true);
      expect(await repo.add(aBearer('ci', 'cf_second', T + 1000))).toBe(false);
      expect(await repo.findByHash(tokenHash('cf_second'))).toBeUndefined();
      expect((await repo.findByHash(tokenHash('cf_first')))?.name).toBe('ci');
      expect((await repo.list()).map((b) => b.name)).toEqual(['ci']);
    });

    it('refuses a second bearer with the same token hash (false)', async () => {
      expect(await repo.add(aBearer('ci', 'cf_shared'))).toBe(true);
      expect(await repo.add(aBearer('deploy', 'cf_shared'))).toBe(false);
      expect((await repo.list()).map((b) => b.name)).toEqual(['ci']);
      expect((await repo.findByHash(tokenHash('cf_shared')))?.name).toBe('ci');
    });

    it('keeps a revoked name taken: it cannot be added again', async () => {
      await repo.add(aBearer('ci', 'cf_old'));
      expect(await repo.revoke('ci', T + 5)).toBe(true);
      expect(await repo.add(aBearer('ci', 'cf_new'))).toBe(false);
      expect(await repo.findByHash(tokenHash('cf_new'))).toBeUndefined();
    });

    it('revokes a live bearer once: a second revoke, or an unknown name, is false', async () => {
      await repo.add(aBearer('ci'));
      expect(await repo.revoke('ci', T + 60_000)).toBe(true);
      expect(await repo.revoke('ci', T + 120_000)).toBe(false);
      expect(await repo.revoke('nobody', T + 120_000)).toBe(false);
      // The first revocation time stays.
      expect((await repo.findByHash(tokenHash('cf_token-of-ci')))?.revokedAt).toBe(T + 60_000);
    });

    it('still finds a revoked bearer by its hash, with revokedAt set', async () => {
      await repo.add(aBearer('ci'));
      await repo.revoke('ci', T + 42);
      expect(await repo.findByHash(tokenHash('cf_token-of-ci'))).toEqual({
        name: 'ci', tokenHash: tokenHash('cf_token-of-ci'), createdAt: T, lastUsedAt: null, revokedAt: T + 42,
      });
    });

    it('lists every bearer sorted by name, revoked ones included, with their fields', async () => {
      expect(await repo.list()).toEqual([]);
      await repo.add(aBearer('zeta', 'cf_z', T + 3));
      await repo.add(aBearer('alpha', 'cf_a', T + 1));
      await repo.add(aBearer('mid.dle:1', 'cf_m', T + 2));
      await repo.revoke('zeta', T + 10);
      await repo.touch('alpha', T + 20);
      expect(await repo.list()).toEqual([
        { name: 'alpha', tokenHash: tokenHash('cf_a'), createdAt: T + 1, lastUsedAt: T + 20, revokedAt: null },
        { name: 'mid.dle:1', tokenHash: tokenHash('cf_m'), createdAt: T + 2, lastUsedAt: null, revokedAt: null },
        { name: 'zeta', tokenHash: tokenHash('cf_z'), createdAt: T + 3, lastUsedAt: null, revokedAt: T + 10 },
      ]);
    });

    it('touch records the last use (the latest call wins) and ignores unknown names', async () => {
      await repo.add(aBearer('ci'));
      await repo.touch('ci', T + 100);
      expect((await repo.findByHash(tokenHash('cf_token-of-ci')))?.lastUsedAt).toBe(T + 100);
      await repo.touch('ci', T + 200);
      expect((await repo.findByHash(tokenHash('cf_token-of-ci')))?.lastUsedAt).toBe(T + 200);
      await expect(repo.touch('nobody', T + 300)).resolves.toBeUndefined();
      expect((await repo.list()).map((b) => b.name)).toEqual(['ci']);
    });

    it('hands out copies: changing a returned bearer does not change the stored one', async () => {
      await repo.add(aBearer('ci'));
      const found = (await repo.findByHash(tokenHash('cf_token-of-ci')))!;
      found.revokedAt = T + 1;
      const listed = (await repo.list())[0]!;
      listed.lastUsedAt = T + 1;
      expect(await repo.findByHash(tokenHash('cf_token-of-ci'))).toMatchObject({ revokedAt: null, lastUsedAt: null });
    });
  });
}

bearerContract('in-memory fake', async () => ({ repo: new InMemoryBearers(), close: async () => {} }));

for (const [store, freshStore] of KNEX_STORES) {
  bearerContract(`knex on ${store}`, async () => {
    const fresh = await freshStore();
    return { repo: new KnexBearerRepository(await fresh.open()), close: fresh.close };
  });
}
