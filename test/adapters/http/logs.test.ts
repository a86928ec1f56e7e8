/**
 * The server's log never carries a secret or a journal value (issue #13, item 2): the request line's path is
 * redacted after percent-decoding (an encoded secret is still a secret), and a storage failure is logged as one
 * short line saying what failed, never the driver's message with the SQL and its values.
 */
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Knex } from 'knex';
import pino from 'pino';
import { Database } from '../../../src/adapters/knex/knex-journal.writer';
import { openRoot, type Root } from '../../../src/bin/root';
import { startServer } from '../../../src/bin/server';
import { makeTempDir, removeTempDir, writeConfig } from '../../support/server';

const SECRET = 'sk-log-secret-4f9a';

describe('the request log and the error log', () => {
  let dir: string;
  let root: Root;
  let server: Server;
  let base: string;
  const logged: string[] = [];

  beforeAll(async () => {
    dir = makeTempDir('chainflow-logs-');
    writeConfig(dir, { secrets: { partner: { env: 'PARTNER_KEY' } } });
    root = await openRoot({ cwd: dir, configPath: `${dir}/chainflow.yaml`, env: { PARTNER_KEY: SECRET } });
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logged.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    server = await startServer(root, { port: 0, host: '127.0.0.1', logger: pino({ level: 'info', base: undefined }, sink) });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await root.close();
    removeTempDir(dir);
  });

  /** Every log line written since `from`, once the server has had a moment to write them. */
  const linesSince = async (from: number): Promise<string[]> => {
    await new Promise((r) => setTimeout(r, 50));
    return logged.slice(from);
  };

  it.each([
    ['plain', SECRET],
    ['percent-encoded', [...SECRET].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')],
    ['partly encoded', SECRET.replace('secret', '%73%65%63%72%65%74')],
    ['encoded twice', encodeURIComponent(encodeURIComponent(SECRET).replace(/-/g, '%2D'))],
  ])('a %s secret in the path is redacted in the request line', async (_kind, inPath) => {
    const from = logged.length;
    const res = await fetch(`${base}/api/history/runs/${inPath}/timeline`);
    expect(res.status).toBeLessThan(500);
    const lines = await linesSince(from);
    const request = lines.map((l) => JSON.parse(l) as { msg: string; url?: string }).find((l) => l.msg === 'request');
    expect(request?.url).toBe('/api/history/runs/<redacted>/timeline');
    for (const line of lines) {
      expect(line).not.toContain(SECRET);
      expect(decodeURIComponent(decodeURIComponent(line))).not.toContain(SECRET);
    }
  });

  it('a storage failure is answered 503 and logged as one short line: what failed, no SQL, no value', async () => {
    await root.container.get<Knex>(Database).raw('DROP TABLE run_relayers');
    const from = logged.length;
    const res = await fetch(`${base}/api/history/runs?relayer=${encodeURIComponent(SECRET)}`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: 'storage unavailable' });
    const errors = (await linesSince(from)).map((l) => JSON.parse(l) as { level: number; err?: string }).filter((l) => l.level >= 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.err).toMatch(/^storage: select from \w+ failed: no such table run_relayers \(SQLITE_ERROR\)$/);
    expect(JSON.stringify(errors)).not.toContain(SECRET);
  });
});
