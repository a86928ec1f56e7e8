import { inject, injectable } from 'inversify';
import { sameSecret, tokenHash } from '../../domain/bearer-token';
import { ChainflowConfig } from '../config';
import { BearerRepository } from '../ports/bearer-repository';
import { Clock } from '../ports/clock';

/** Candidates worth checking: present, and not absurdly long. */
function usable(candidates: readonly (string | undefined)[]): string[] {
  return candidates.filter((c): c is string => typeof c === 'string' && c.length > 0 && c.length <= 512);
}

/** The name the configured `server.auth.token` acts under (CONTRACT 8.4). */
export const CONFIGURED_TOKEN_NAME = 'token';

/** A use is recorded at most this often per bearer (ms): last-used is for people, not an audit log. */
const TOUCH_EVERY = 60_000;

/**
 * Whether a request's credentials are valid: the configured `server.auth.token` (compared in constant time)
 * or a live named bearer (looked up by hash on every request, so a revocation takes effect at once, also in
 * a server that is already running). Any one valid candidate suffices.
 */
@injectable()
export class Authenticate {
  private readonly touched = new Map<string, number>();

  constructor(
    @inject(ChainflowConfig) private readonly config: ChainflowConfig,
    @inject(BearerRepository) private readonly bearers: BearerRepository,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** Authentication is on when `server.auth.token` is set. */
  get enabled(): boolean {
    return this.config.server.authToken !== undefined;
  }

  /**
   * Whether one of the candidates is the configured token: answered without I/O, so that the common case
   * costs no more than two hashes.
   */
  matchesConfigured(candidates: readonly (string | undefined)[]): boolean {
    const configured = this.config.server.authToken;
    return configured !== undefined && usable(candidates).some((c) => sameSecret(c, configured));
  }

  /** `candidates`: the tokens a request carries (Authorization: Bearer, X-Service-Token), absent ones undefined. */
  async execute(candidates: readonly (string | undefined)[]): Promise<boolean> {
    return (await this.identify(candidates)) !== null;
  }

  /**
   * Who the credentials name: `token` for the configured token, the bearer's name for a live named bearer, null
   * when none is valid. Decisions taken over the API are recorded under this name.
   */
  async identify(candidates: readonly (string | undefined)[]): Promise<string | null> {
    if (this.matchesConfigured(candidates)) return CONFIGURED_TOKEN_NAME;
    for (const candidate of usable(candidates)) {
      const bearer = await this.bearers.findByHash(tokenHash(candidate));
      if (bearer && bearer.revokedAt === null) {
        this.noteUse(bearer.name);
        return bearer.name;
      }
    }
    return null;
  }

  private noteUse(name: string): void {
    const now = this.clock.now();
    if (now - (this.touched.get(name) ?? 0) < TOUCH_EVERY) return;
    this.touched.set(name, now);
    this.bearers.touch(name, now).catch(() => undefined);
  }
}
