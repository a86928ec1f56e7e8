import { inject, injectable } from 'inversify';
import { BEARER_NAME, newToken, tokenHash } from '../../domain/bearer-token';
import { ChainflowError, InvalidInputError, NotFoundError } from '../../domain/errors';
import { toIso } from '../../domain/time';
import { BearerRepository } from '../ports/bearer-repository';
import { Clock } from '../ports/clock';

export class BearerExistsError extends ChainflowError {
  readonly code = 'conflict' as const;
  constructor(name: string) {
    super(`name: a bearer named '${name}' exists already (names are never reused, also after a revocation)`);
  }
}

export interface MintedBearer {
  name: string;
  /** Shown once, at mint; only its hash is kept. */
  token: string;
  created_at: string;
}

export interface BearerItem {
  name: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  revoked: boolean;
}

function checkName(name: string): void {
  if (!BEARER_NAME.test(name)) throw new InvalidInputError('name', 'must match [A-Za-z0-9][A-Za-z0-9._:-]{0,127}');
}

/** `chainflow token mint NAME`: a new named bearer; the token is returned once and stored hashed. */
@injectable()
export class MintBearer {
  constructor(@inject(BearerRepository) private readonly bearers: BearerRepository, @inject(Clock) private readonly clock: Clock) {}

  async execute(name: string): Promise<MintedBearer> {
    checkName(name);
    const token = newToken();
    const createdAt = this.clock.now();
    if (!(await this.bearers.add({ name, tokenHash: tokenHash(token), createdAt, lastUsedAt: null, revokedAt: null }))) {
      throw new BearerExistsError(name);
    }
    return { name, token, created_at: toIso(createdAt) };
  }
}

/** `chainflow token revoke NAME`: the bearer fails from the next request on. */
@injectable()
export class RevokeBearer {
  constructor(@inject(BearerRepository) private readonly bearers: BearerRepository, @inject(Clock) private readonly clock: Clock) {}

  async execute(name: string): Promise<void> {
    checkName(name);
    if (!(await this.bearers.revoke(name, this.clock.now()))) throw new NotFoundError(`live bearer '${name}'`, 'name');
  }
}

/** `chainflow token list`: name, created, last used, revoked; never the token. */
@injectable()
export class ListBearers {
  constructor(@inject(BearerRepository) private readonly bearers: BearerRepository) {}

  async execute(): Promise<BearerItem[]> {
    return (await this.bearers.list()).map((b) => ({
      name: b.name, created_at: toIso(b.createdAt), last_used_at: toIso(b.lastUsedAt), revoked_at: toIso(b.revokedAt),
      revoked: b.revokedAt !== null,
    }));
  }
}
