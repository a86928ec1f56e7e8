/** GET /health on both stores: names the storage (never its URL), 200 while it answers, 503 once it does not. */
import { freshPostgres } from '../../support/postgres';
import { startTestServer, type TestServer } from '../../support/server';

describe.each([
  ['SQLite', 'sqlite'],
  ['PostgreSQL', 'postgres'],
] as const)('GET /health on %s', (_name, kind) => {
  let srv: TestServer;
  let url: string;
  let stop: () => Promise<void>;

  beforeEach(async () => {
    if (kind === 'postgres') {
      const fresh = await freshPostgres();
      url = fresh.url;
      srv = await startTestServer({ config: { storage: { url } } });
      // The database goes away under the running server (dropped, its connections ended): it no longer answers.
      stop = fresh.drop;
    } else {
      srv = await startTestServer();
      url = srv.root.config.storage.url;
      stop = () => srv.root.close();
    }
  });
  afterEach(() => srv.close());

  it('is 200 naming the storage while the database answers, and never shows its URL', async () => {
    const res = await srv.get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', storage: kind, checks: { database: 'ok' } });
    expect(res.text).not.toContain(url.replace(/^(sqlite:|postgres:\/\/)/, ''));
  });

  it('is 503 unavailable, still naming the storage, when the database stops answering; /live stays 200', async () => {
    await stop();
    const res = await srv.get('/health');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'unavailable', storage: kind, checks: { database: 'unavailable' } });
    expect((await srv.get('/live')).status).toBe(200);
  });
});
