/**
 * Authenticate, MintBearer, RevokeBearer and ListBearers with fakes (SPEC: Authentication 2-5; CONTRACT
 * section 5): the config token or any live named bearer, through either candidate; tokens stored hashed only.
 */
import { Authenticate } from '../../src/application/auth/authenticate.use-case';
import { BearerExistsError, ListBearers, MintBearer, RevokeBearer } from '../../src/application/auth/manage-bearers.use-case';
import type { ChainflowConfig } from '../../src/application/config';
import { tokenHash } from '../../src/domain/bearer-token';
import { InvalidInputError, NotFoundError } from '../../src/domain/errors';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryBearers } from '../fakes/in-memory-bearers';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const CONFIG_TOKEN = 'config-token-0123456789abcdef';

function configWith(authToken?: string): ChainflowConfig {
  return {
    server: { host: '127.0.0.1', port: 8080, authToken, healthPublic: true, metricsPublic: false },
    storage: { url: 'sqlite::memory:' },
    networks: new Map(),
    relayers: new Map(),
    budgets: new Map(),
    workflows: new Map(),
    secretValues: authToken === undefined ? [] : [authToken],
  };
}

/** `null`: no server.auth.token (authentication off). */
function setup(configured: string | null = CONFIG_TOKEN) {
  const authToken = configured ?? undefined;
  const bearers = new InMemoryBearers();
  const clock = new FixedClock(T0);
  return {
    bearers,
    clock,
    authenticate: new Authenticate(configWith(authToken), bearers, clock),
    mint: new MintBearer(bearers, clock),
    revoke: new RevokeBearer(bearers, clock),
    list: new ListBearers(bearers),
  };
}

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('Authenticate', () => {
  it('is enabled exactly when server.auth.token is set', () => {
    expect(setup().authenticate.enabled).toBe(true);
    expect(setup(null).authenticate.enabled).toBe(false);
  });

  it('accepts the config token, through either candidate', async () => {
    const { authenticate } = setup();
    expect(await authenticate.execute([CONFIG_TOKEN, undefined])).toBe(true);
    expect(await authenticate.execute([undefined, CONFIG_TOKEN])).toBe(true);
  });

  it('refuses a wrong token, a prefix or extension of the config token, and no token at all', async () => {
    const { authenticate } = setup();
    expect(await authenticate.execute(['wrong', undefined])).toBe(false);
    expect(await authenticate.execute([CONFIG_TOKEN.slice(0, -1), undefined])).toBe(false);
    expect(await authenticate.execute([`${CONFIG_TOKEN}x`, undefined])).toBe(false);
    expect(await authenticate.execute([CONFIG_TOKEN.toUpperCase(), undefined])).toBe(false);
    expect(await authenticate.execute([undefined, undefined])).toBe(false);
    expect(await authenticate.execute([])).toBe(false);
  });

  it('accepts a minted bearer, through either candidate', async () => {
    const { authenticate, mint } = setup();
    const { token } = await mint.execute('ci');
    expect(await authenticate.execute([token, undefined])).toBe(true);
    expect(await authenticate.execute([undefined, token])).toBe(true);
  });

  it('accepts minted bearers when no config token is set (only a bearer can match then)', async () => {
    const { authenticate, mint } = setup(null);
    const { token } = await mint.execute('ci');
    expect(await authenticate.execute([token, undefined])).toBe(true);
    expect(await authenticate.execute(['cf_not-a-bearer', undefined])).toBe(false);
  });

  it('lets either candidate suffice: a wrong Authorization with a right X-Service-Token, and the reverse', async () => {
    const { authenticate, mint } = setup();
    const { token } = await mint.execute('proxy');
    expect(await authenticate.execute(['wrong', CONFIG_TOKEN])).toBe(true);
    expect(await authenticate.execute([CONFIG_TOKEN, 'wrong'])).toBe(true);
    expect(await authenticate.execute(['wrong', token])).toBe(true);
    expect(await authenticate.execute([token, 'wrong'])).toBe(true);
    expect(await authenticate.execute(['wrong', 'also-wrong'])).toBe(false);
  });

  it('refuses a revoked bearer on the very next call, while other bearers and the config token still work', async () => {
    const { authenticate, mint, revoke } = setup();
    const ci = await mint.execute('ci');
    const other = await mint.execute('other');
    expect(await authenticate.execute([ci.token, undefined])).toBe(true);
    await revoke.execute('ci');
    expect(await authenticate.execute([ci.token, undefined])).toBe(false);
    expect(await authenticate.execute([undefined, ci.token])).toBe(false);
    expect(await authenticate.execute([other.token, undefined])).toBe(true);
    expect(await authenticate.execute([ci.token, CONFIG_TOKEN])).toBe(true);
  });

  it('refuses empty and oversized candidates (more than 512 characters), even when they would match', async () => {
    const long = `cf_${'a'.repeat(600)}`;
    const { authenticate, bearers } = setup(long);
    expect(await authenticate.execute(['', ''])).toBe(false);
    expect(await authenticate.execute([long, undefined])).toBe(false);
    expect(await authenticate.execute([undefined, long])).toBe(false);
    // A stored bearer whose token is oversized is not looked up either.
    await bearers.add({ name: 'huge', tokenHash: tokenHash(long), createdAt: T0, lastUsedAt: null, revokedAt: null });
    expect(await authenticate.execute([long, undefined])).toBe(false);
  });

  it('records a bearer use (last used), at most once a minute', async () => {
    const { authenticate, mint, list, clock } = setup();
    const { token } = await mint.execute('ci');
    expect((await list.execute())[0]!.last_used_at).toBeNull();
    await authenticate.execute([token, undefined]);
    await new Promise((r) => setImmediate(r));
    expect((await list.execute())[0]!.last_used_at).toBe(new Date(T0).toISOString());
    clock.advance(10_000);
    await authenticate.execute([token, undefined]);
    await new Promise((r) => setImmediate(r));
    expect((await list.execute())[0]!.last_used_at).toBe(new Date(T0).toISOString());
    clock.advance(60_000);
    await authenticate.execute([token, undefined]);
    await new Promise((r) => setImmediate(r));
    expect((await list.execute())[0]!.last_used_at).toBe(new Date(T0 + 70_000).toISOString());
  });
});

describe('MintBearer', () => {
  it('returns { name, token, created_at } with a cf_ token; the repository holds only its SHA-256', async () => {
    const { mint, bearers } = setup();
    const minted = await mint.execute('ci');
    expect(Object.keys(minted).sort()).toEqual(['created_at', 'name', 'token']);
    expect(minted).toEqual({ name: 'ci', token: expect.stringMatching(/^cf_[A-Za-z0-9_-]{43}$/), created_at: new Date(T0).toISOString() });
    const stored = await bearers.list();
    expect(stored).toEqual([{ name: 'ci', tokenHash: tokenHash(minted.token), createdAt: T0, lastUsedAt: null, revokedAt: null }]);
    const storedText = JSON.stringify(stored);
    expect(storedText).not.toContain(minted.token);
    expect(storedText).not.toContain(minted.token.slice(3));
  });

  it('mints a different token every time', async () => {
    const { mint } = setup();
    const tokens = new Set<string>();
    for (let i = 0; i < 20; i++) tokens.add((await mint.execute(`b${i}`)).token);
    expect(tokens.size).toBe(20);
  });

  it.each(['', '-leading-dash', '.dot', 'has space', 'slash/name', 'ünïcode', 'a'.repeat(129), 'semi;colon', 'new\nline'])(
    'refuses the bad name %j with an InvalidInputError on field name, storing nothing',
    async (name) => {
      const { mint, bearers } = setup();
      const err = await caught(mint.execute(name));
      expect(err).toBeInstanceOf(InvalidInputError);
      expect((err as InvalidInputError).field).toBe('name');
      expect(await bearers.list()).toEqual([]);
    },
  );

  it('accepts names of the id rule, up to 128 characters', async () => {
    const { mint } = setup();
    for (const name of ['a', 'Z9', 'ci.deploy:prod_1-x', 'a'.repeat(128)]) {
      expect((await mint.execute(name)).name).toBe(name);
    }
  });

  it('refuses to reuse a name, also after a revocation, and the refused mint leaves no token behind', async () => {
    const { mint, revoke, bearers } = setup();
    await mint.execute('ci');
    const again = await caught(mint.execute('ci'));
    expect(again).toBeInstanceOf(BearerExistsError);
    expect((again as Error).message).toMatch(/^name: /);
    await revoke.execute('ci');
    expect(await caught(mint.execute('ci'))).toBeInstanceOf(BearerExistsError);
    expect((await bearers.list()).map((b) => b.name)).toEqual(['ci']);
  });
});

describe('RevokeBearer', () => {
  it('revokes at the clock time; a second revoke or an unknown name is a NotFoundError on name (a failure, as a duplicate mint)', async () => {
    const { mint, revoke, list, clock } = setup();
    await mint.execute('ci');
    clock.advance(5_000);
    await revoke.execute('ci');
    expect((await list.execute())[0]).toMatchObject({ name: 'ci', revoked: true, revoked_at: new Date(T0 + 5_000).toISOString() });
    for (const name of ['ci', 'nobody']) {
      const err = await caught(revoke.execute(name));
      expect(err).toBeInstanceOf(NotFoundError);
      expect((err as NotFoundError).field).toBe('name');
    }
    expect(await caught(revoke.execute('bad name'))).toBeInstanceOf(InvalidInputError);
  });
});

describe('ListBearers', () => {
  it('lists name, created_at, last_used_at, revoked_at, revoked; never the token or its hash', async () => {
    const { mint, revoke, list, authenticate, clock } = setup();
    const b = await mint.execute('b-live');
    clock.advance(1000);
    const a = await mint.execute('a-revoked');
    await authenticate.execute([b.token, undefined]);
    await new Promise((r) => setImmediate(r));
    clock.advance(1000);
    await revoke.execute('a-revoked');
    const items = await list.execute();
    expect(items).toEqual([
      { name: 'a-revoked', created_at: new Date(T0 + 1000).toISOString(), last_used_at: null, revoked_at: new Date(T0 + 2000).toISOString(), revoked: true },
      { name: 'b-live', created_at: new Date(T0).toISOString(), last_used_at: new Date(T0 + 1000).toISOString(), revoked_at: null, revoked: false },
    ]);
    const text = JSON.stringify(items);
    for (const token of [a.token, b.token]) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(tokenHash(token));
    }
  });
});
