/**
 * `GET /api/budgets` on a real server, on SQLite and PostgreSQL (issue 30): the list envelope of each budget's caps with spent, reserved,
 * cap and headroom as decimal strings, matching the schema the OpenAPI document gives it; a bad parameter is a 400
 * naming it; under the bearer when auth is on.
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { startTestServer, type TestServer } from '../../support/server';
import { E2E_STORAGES } from '../../support/stores';

const CONFIG = {
  secrets: { api_token: { env: 'CF_BUDGETS_TOKEN' } },
  server: { auth: { token: { secret: 'api_token' } } },
  budgets: {
    daily: { window: '24h', max_gas_spend: '0.01 ether', max_native_value: '1 ether' },
    weekly: { window: '7d', max_native_value: '123456789012345678901234567890' },
  },
  workflows: { payouts: { trigger: { kind: 'manual' }, budgets: ['daily', 'weekly'], steps: [{ id: 'wait', type: 'delay', duration: '1s' }] } },
};
const TOKEN = 'budgets-api-token';

describe.each(E2E_STORAGES)('GET /api/budgets, on %s', (_name, freshStorage) => {
  let srv: TestServer;
  const authed = (path: string) => fetch(`${srv.baseUrl}${path}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  beforeAll(async () => {
    srv = await startTestServer({ storage: await freshStorage(), config: CONFIG, env: { CF_BUDGETS_TOKEN: TOKEN } });
  });
  afterAll(() => srv.close());

  it('answers each budget with its window and caps: nothing spent, the whole cap as headroom, exact beyond 2^64', async () => {
    const res = await authed('/api/budgets');
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({
      cursor: null, has_more: false,
      items: [
        {
          budget: 'daily', window: '1d', window_start: expect.any(String), relayers: null, workflows: ['payouts'],
          caps: [
            { kind: 'max_gas_spend', token: null, spent: '0', reserved: '0', cap: '10000000000000000', headroom: '10000000000000000' },
            { kind: 'max_native_value', token: null, spent: '0', reserved: '0', cap: '1000000000000000000', headroom: '1000000000000000000' },
          ],
        },
        {
          budget: 'weekly', window: '1w', window_start: expect.any(String), relayers: null, workflows: ['payouts'],
          caps: [{ kind: 'max_native_value', token: null, spent: '0', reserved: '0', cap: '123456789012345678901234567890', headroom: '123456789012345678901234567890' }],
        },
      ],
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const doc = (await (await authed('/api/openapi.json')).json()) as any;
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(doc.paths['/api/budgets'].get.responses['200'].content['application/json'].schema);
    expect({ ok: validate(body), errors: validate.errors ?? null }).toEqual({ ok: true, errors: null });
  });

  it('a bad parameter is a 400 naming it; without the token a 401', async () => {
    const bad = await authed('/api/budgets?limit=5');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/^limit: /);
    expect((await srv.get('/api/budgets')).status).toBe(401);
  });
});
