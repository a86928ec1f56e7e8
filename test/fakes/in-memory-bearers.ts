import type { NamedBearer } from '../../src/domain/bearer-token';
import type { BearerRepository } from '../../src/application/ports/bearer-repository';

/** Named bearers in memory; passes the same contract as the knex adapter (test/contract/bearers.contract.test.ts). */
export class InMemoryBearers implements BearerRepository {
  private readonly byName = new Map<string, NamedBearer>();

  async add(b: NamedBearer): Promise<boolean> {
    if (this.byName.has(b.name) || [...this.byName.values()].some((x) => x.tokenHash === b.tokenHash)) return false;
    this.byName.set(b.name, { ...b });
    return true;
  }

  async revoke(name: string, at: number): Promise<boolean> {
    const b = this.byName.get(name);
    if (!b || b.revokedAt !== null) return false;
    b.revokedAt = at;
    return true;
  }

  async list(): Promise<NamedBearer[]> {
    return [...this.byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1)).map((b) => ({ ...b }));
  }

  async findByHash(tokenHash: string): Promise<NamedBearer | undefined> {
    const b = [...this.byName.values()].find((x) => x.tokenHash === tokenHash);
    return b && { ...b };
  }

  async touch(name: string, at: number): Promise<void> {
    const b = this.byName.get(name);
    if (b) b.lastUsedAt = at;
  }
}
