import { aRun, aTxHash, MINUTE, T0 } from '../../mothers/journal-events';
import { startTestServer, type TestServer } from '../../support/server';
import { E2E_STORAGES } from '../../support/stores';

const SECRET = 'exp0rt-secret-value';

describe.each(E2E_STORAGES)('GET /api/history/export and /api/history/diff (real server, real store), on %s', (_name, freshStorage) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({
      storage: await freshStorage(),
      config: { secrets: { api_key: { env: 'EXPORT_SECRET' } } },
      env: { EXPORT_SECRET: SECRET },
    });
    await server.append([
      ...aRun({ runId: 'e-ok', workflow: 'payouts', at: T0, steps: [{ stepId: 'fetch', output: { key: SECRET, price: '1' } }], send: { relayer: 'ops', txHash: aTxHash('e1') } }),
      ...aRun({ runId: 'e-bad', workflow: 'payouts', at: T0 + MINUTE, steps: [{ stepId: 'fetch', output: { price: '2' } }], failure: { kind: 'http_error', message: `used ${SECRET}` } }),
      ...aRun({ runId: 'e-other', workflow: 'keeper', at: T0 + 2 * MINUTE }),
    ]);
  });
  afterAll(async () => server.close());

  it('streams the JSON export of the filtered runs, redacted', async () => {
    const res = await server.get('/api/history/export?format=json&workflow=payouts');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.body)).toEqual(['runs', 'steps', 'sends', 'approvals', 'failures']);
    expect(res.body.runs.map((r: { run_id: string }) => r.run_id)).toEqual(['e-bad', 'e-ok']);
    expect(res.body.failures).toEqual([expect.objectContaining({ run_id: 'e-bad', error_kind: 'http_error', error_message: 'used <redacted>' })]);
    expect(res.text).not.toContain(SECRET);
  });

  it('streams the CSV export: one row per run after a header', async () => {
    const res = await server.get('/api/history/export?format=csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = res.text.trimEnd().split('\n');
    expect(rows[0]!.startsWith('run_id,workflow,status,')).toBe(true);
    expect(rows.slice(1).map((r) => r.split(',')[0])).toEqual(['e-other', 'e-bad', 'e-ok']);
  });

  it.each([
    ['format=xml', 'format'],
    ['format=json&raw=1', 'raw'],
    ['status=bogus', 'status'],
  ])('refuses %s with a 400 naming the parameter, before any byte of export', async (query, field) => {
    const res = await server.get(`/api/history/export?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(new RegExp(`^${field}:`));
  });

  it('compares two runs step by step', async () => {
    const res = await server.get('/api/history/diff?a=e-ok&b=e-bad');
    expect(res.status).toBe(200);
    expect(res.body.a.run_id).toBe('e-ok');
    expect(res.body.b.run_id).toBe('e-bad');
    const fetch = res.body.steps.find((s: { step_id: string }) => s.step_id === 'fetch');
    expect(fetch.changes).toEqual(expect.arrayContaining([{ path: 'output.price', a: '1', b: '2' }]));
    expect(res.text).not.toContain(SECRET);
  });

  it.each([
    ['a=e-ok', 400, /^b:/],
    ['a=e-ok&b=bad%20id', 400, /^b:/],
    ['a=e-ok&b=e-bad&c=1', 400, /^c:/],
    ['a=e-ok&b=missing', 404, /run not found/],
  ])('diff %s answers %i', async (query, status, error) => {
    const res = await server.get(`/api/history/diff?${query}`);
    expect(res.status).toBe(status);
    expect(res.body.error).toMatch(error);
  });
});
