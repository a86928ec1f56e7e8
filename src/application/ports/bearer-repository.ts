import type { NamedBearer } from '../../domain/bearer-token';

/** Where named bearers are kept (hashed). */
export interface BearerRepository {
  /** Stores a new bearer; false when the name is taken (revoked names stay taken). */
  add(bearer: NamedBearer): Promise<boolean>;
  /** Marks it revoked at `at`; false when there is no such live bearer. */
  revoke(name: string, at: number): Promise<boolean>;
  list(): Promise<NamedBearer[]>;
  /** The bearer with this token hash, revoked or not. */
  findByHash(tokenHash: string): Promise<NamedBearer | undefined>;
  /** Records a use (best effort). */
  touch(name: string, at: number): Promise<void>;
}
export const BearerRepository = Symbol('BearerRepository');
