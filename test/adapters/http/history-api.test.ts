/**
 * The history API through the real HTTP server on a real SQLite file and on PostgreSQL (SPEC: History API,
 * Conventions, Errors; CONTRACT sections 4, 5 and 10: the same answers on either store). The journal is written
 * through the JournalWriter port. The refusals of bad input (before any store is read) and the probes on SQLite only.
 */
import { aRun, aTxHash, DAY, HOUR, iso, manyRuns, MINUTE, T0 } from '../../mothers/journal-events';
import { startTestServer, type TestServer } from '../../support/server';
import { E2E_STORAGES } from '../../support/stores';
import type { JournalEvent } from '../../../src/domain/journal/journal-event';

const RUN_ITEM_FIELDS = [
  'run_id', 'workflow', 'status', 'trigger', 'session', 'session_id', 'network', 'contract', 'relayers', 'tx_hashes',
  'block', 'step_ids', 'error_kind', 'approval_status', 'wait_kind', 'replay_of', 'created_at', 'finished_at', 'duration_ms',
].sort();

type RunItem = { run_id: string; created_at: string; [k: string]: unknown };

/** Every run id of a filtered list, following cursors to the end. */
async function allRunIds(srv: TestServer, query: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const sep = query ? '&' : '';
    const res = await srv.get(`/api/history/runs?${query}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status).toBe(200);
    ids.push(...(res.body.items as RunItem[]).map((r) => r.run_id));
    cursor = res.body.cursor;
    if (!res.body.has_more) return ids;
  }
  throw new Error('too many pages');
}

/** Newest first on (created_at, run_id), ties broken by run_id descending. */
function expectNewestFirst(items: readonly RunItem[]): void {
  for (let i = 1; i < items.length; i++) {
    const a = items[i - 1]!;
    const b = items[i]!;
    const ordered = a.created_at > b.created_at || (a.created_at === b.created_at && a.run_id > b.run_id);
    expect({ pair: [a.run_id, b.run_id], ordered }).toEqual({ pair: [a.run_id, b.run_id], ordered: true });
  }
}

describe.each(E2E_STORAGES)('GET /api/history/runs: envelope and order, on %s', (_name, freshStorage) => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ storage: await freshStorage() });
    await srv.append([
      ...aRun({ runId: 'order-b', at: T0 }),
      ...aRun({ runId: 'order-old', at: T0 - HOUR }),
      ...aRun({ runId: 'order-new', at: T0 + HOUR }),
      // Three runs sharing one created_at: ties are broken by run_id, descending.
      ...aRun({ runId: 'order-a', at: T0 }),
      ...aRun({ runId: 'order-c', at: T0 }),
    ]);
  });
  afterAll(() => srv.close());

  it('answers a page as one JSON body: UTF-8 JSON type, its exact byte length, and no body to a HEAD', async () => {
    // A client that takes no compression (fetch would decode a compressed one; compression.http.test.ts has those).
    const res = await fetch(`${srv.baseUrl}/api/history/runs?workflow=payouts`, { headers: { 'accept-encoding': 'identity' } });
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(JSON.parse(bytes.toString('utf8')).items).toHaveLength(5);
    const head = await fetch(`${srv.baseUrl}/api/history/runs?workflow=payouts`, { method: 'HEAD' });
    expect({ status: head.status, length: Number(head.headers.get('content-length')), body: await head.text() }).toEqual({ status: 200, length: bytes.length, body: '' });
  });

  it('answers the list envelope { items, cursor, has_more } with run items of CONTRACT section 4', async () => {
    const res = await srv.get('/api/history/runs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(['cursor', 'has_more', 'items']);
    expect(res.body.cursor).toBeNull();
    expect(res.body.has_more).toBe(false);
    expect(res.body.items).toHaveLength(5);
    for (const item of res.body.items) expect(Object.keys(item).sort()).toEqual(RUN_ITEM_FIELDS);
    const newest = res.body.items[0];
    expect(newest).toMatchObject({
      run_id: 'order-new', workflow: 'payouts', status: 'succeeded', trigger: 'cron', session: 'live',
      step_ids: ['fetch_quote'], created_at: iso(T0 + HOUR), error_kind: null, approval_status: null,
    });
    expect(newest.finished_at).toBe(iso(T0 + HOUR + 3000));
    expect(newest.duration_ms).toBe(3000);
  });

  it('lists newest first on (created_at, run_id), ties broken by run_id descending', async () => {
    const res = await srv.get('/api/history/runs');
    expect(res.body.items.map((r: RunItem) => r.run_id)).toEqual(['order-new', 'order-c', 'order-b', 'order-a', 'order-old']);
    expectNewestFirst(res.body.items);
  });

  it('keeps the tie order across page boundaries (limit=1)', async () => {
    expect(await allRunIds(srv, 'limit=1')).toEqual(['order-new', 'order-c', 'order-b', 'order-a', 'order-old']);
  });
});

describe.each(E2E_STORAGES)('GET /api/history/runs: every run filter, on %s', (_name, freshStorage) => {
  let srv: TestServer;
  const now = Date.now();
  const H1 = aTxHash('filter-tx-1');
  const H4 = aTxHash('filter-tx-4');
  const BASE_CONTRACT = '0x4200000000000000000000000000000000000006';

  beforeAll(async () => {
    srv = await startTestServer({ storage: await freshStorage() });
    await srv.append([
      ...aRun({
        runId: 'f-01', workflow: 'payouts', at: now - 1 * HOUR, network: 'sepolia', block: 100, contract: '0xaaaa',
        send: { relayer: 'ops', txHash: H1 },
      }),
      ...aRun({
        runId: 'f-02', workflow: 'price-keeper', at: now - 2 * HOUR, network: 'base', block: 200, contract: BASE_CONTRACT,
        trigger: { kind: 'event', summary: 'AnswerUpdated' },
        steps: [{ stepId: 'fetch_price', error: { kind: 'http_error', message: 'HTTP 503' } }],
      }),
      ...aRun({
        runId: 'f-03', workflow: 'payouts', at: now - 3 * HOUR, trigger: { kind: 'webhook' },
        approval: {}, park: { waitKind: 'approval', expiresAt: iso(now + DAY) },
      }),
      ...aRun({
        runId: 'f-04', workflow: 'treasury-sweep', at: now - 30 * HOUR, network: 'mainnet',
        approval: { decision: 'approved', by: 'alice' }, send: { relayer: 'treasury', network: 'mainnet', chainId: 1, txHash: H4 },
      }),
      ...aRun({
        runId: 'f-05', workflow: 'payouts', at: now - 48 * HOUR, sessionId: 'session-1', session: 'replay', replayOf: 'f-01',
        approval: { decision: 'rejected', by: 'bob', reason: 'too much' }, failure: { kind: 'budget_exceeded' },
      }),
      ...aRun({ runId: 'f-06', workflow: 'alerts', at: now - 72 * HOUR, session: 'test', sessionId: 'session-2', status: 'running' }),
      ...aRun({ runId: 'f-07', workflow: 'alerts', at: now - 10 * DAY, failure: { kind: 'rpc_error' }, status: 'dead_lettered' }),
    ]);
  });
  afterAll(() => srv.close());

  const cases: Array<[string, () => string, string[]]> = [
    ['no filter', () => '', ['f-01', 'f-02', 'f-03', 'f-04', 'f-05', 'f-06', 'f-07']],
    ['workflow', () => 'workflow=payouts', ['f-01', 'f-03', 'f-05']],
    ['status=failed', () => 'status=failed', ['f-02', 'f-05']],
    ['status=waiting', () => 'status=waiting', ['f-03']],
    ['status=running', () => 'status=running', ['f-06']],
    ['status=dead_lettered', () => 'status=dead_lettered', ['f-07']],
    ['status=succeeded', () => 'status=succeeded', ['f-01', 'f-04']],
    ['trigger', () => 'trigger=event', ['f-02']],
    ['trigger=webhook', () => 'trigger=webhook', ['f-03']],
    ['network', () => 'network=base', ['f-02']],
    ['network (from the send)', () => 'network=mainnet', ['f-04']],
    ['contract', () => `contract=${BASE_CONTRACT}`, ['f-02']],
    ['relayer', () => 'relayer=ops', ['f-01']],
    ['relayer=treasury', () => 'relayer=treasury', ['f-04']],
    ['tx_hash', () => `tx_hash=${H4}`, ['f-04']],
    ['block', () => 'block=200', ['f-02']],
    ['run_id', () => 'run_id=f-04', ['f-04']],
    ['step_id', () => 'step_id=fetch_price', ['f-02']],
    ['step_id (send step)', () => 'step_id=submit_tx', ['f-01', 'f-04']],
    ['error_kind', () => 'error_kind=budget_exceeded', ['f-05']],
    ['error_kind from a failed step', () => 'error_kind=http_error', ['f-02']],
    ['approval_status=pending', () => 'approval_status=pending', ['f-03']],
    ['approval_status=approved', () => 'approval_status=approved', ['f-04']],
    ['approval_status=rejected', () => 'approval_status=rejected', ['f-05']],
    ['session=live', () => 'session=live', ['f-01', 'f-02', 'f-03', 'f-04', 'f-07']],
    ['session=replay', () => 'session=replay', ['f-05']],
    ['session=test', () => 'session=test', ['f-06']],
    ['since as a duration', () => 'since=24h', ['f-01', 'f-02', 'f-03']],
    ['since as days', () => 'since=4d', ['f-01', 'f-02', 'f-03', 'f-04', 'f-05', 'f-06']],
    ['since as RFC 3339', () => `since=${encodeURIComponent(iso(now - 50 * HOUR))}`, ['f-01', 'f-02', 'f-03', 'f-04', 'f-05']],
    ['since with an offset', () => `since=${encodeURIComponent(iso(now - 50 * HOUR).replace('Z', '+00:00'))}`, ['f-01', 'f-02', 'f-03', 'f-04', 'f-05']],
    ['until as RFC 3339', () => `until=${encodeURIComponent(iso(now - 40 * HOUR))}`, ['f-05', 'f-06', 'f-07']],
    ['until as a duration', () => 'until=36h', ['f-05', 'f-06', 'f-07']],
    ['since and until (inclusive bounds)', () => `since=${encodeURIComponent(iso(now - 30 * HOUR))}&until=${encodeURIComponent(iso(now - 3 * HOUR))}`, ['f-03', 'f-04']],
    ['two filters combined (AND)', () => 'workflow=payouts&status=failed', ['f-05']],
    ['list filter and column filter combined', () => 'step_id=submit_tx&workflow=treasury-sweep', ['f-04']],
    ['two list filters combined', () => `relayer=ops&tx_hash=${H4}`, []],
    ['a value nothing has', () => 'workflow=nope', []],
  ];

  it.each(cases)('%s returns exactly the matching runs, newest first', async (_name, query, expected) => {
    const res = await srv.get(`/api/history/runs?${query()}`);
    expect(res.status).toBe(200);
    expect(res.body.items.map((r: RunItem) => r.run_id)).toEqual(expected);
    expect(res.body.has_more).toBe(false);
  });

  it('a filtered list pages like the whole list', async () => {
    expect(await allRunIds(srv, 'workflow=payouts&limit=1')).toEqual(['f-01', 'f-03', 'f-05']);
    expect(await allRunIds(srv, 'relayer=treasury&limit=1')).toEqual(['f-04']);
  });

  it('reports the filtered fields on the items', async () => {
    const res = await srv.get('/api/history/runs?run_id=f-05');
    expect(res.body.items[0]).toMatchObject({
      workflow: 'payouts', status: 'failed', session: 'replay', session_id: 'session-1', replay_of: 'f-01',
      error_kind: 'budget_exceeded', approval_status: 'rejected',
    });
    const f01 = (await srv.get('/api/history/runs?run_id=f-01')).body.items[0];
    expect(f01).toMatchObject({ relayers: ['ops'], tx_hashes: [H1], block: 100, network: 'sepolia', contract: '0xaaaa' });
    const f03 = (await srv.get('/api/history/runs?run_id=f-03')).body.items[0];
    expect(f03).toMatchObject({ status: 'waiting', wait_kind: 'approval', approval_status: 'pending', finished_at: null, duration_ms: null });
  });
});

describe.each(E2E_STORAGES)('GET /api/history/runs: keyset pagination, on %s', (_name, freshStorage) => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ storage: await freshStorage() });
  });
  afterAll(() => srv.close());

  it('walking pages with cursor and limit returns every row exactly once, in order', async () => {
    // 23 runs; pairs share a created_at so that page boundaries fall inside ties.
    const events: JournalEvent[] = [];
    for (let i = 0; i < 23; i++) events.push(...aRun({ runId: `walk-${String(i).padStart(2, '0')}`, workflow: 'walk', at: T0 - Math.floor(i / 2) * MINUTE }));
    await srv.append(events);

    const seen: RunItem[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await srv.get(`/api/history/runs?workflow=walk&limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      pages++;
      seen.push(...res.body.items);
      if (res.body.has_more) {
        expect(res.body.items).toHaveLength(5);
        expect(typeof res.body.cursor).toBe('string');
      } else {
        expect(res.body.cursor).toBeNull();
      }
      cursor = res.body.cursor;
    } while (cursor && pages < 20);

    expect(pages).toBe(5);
    const ids = seen.map((r) => r.run_id);
    expect(new Set(ids).size).toBe(23);
    expect(ids).toHaveLength(23);
    expectNewestFirst(seen);
  });

  it('pages through a list filter (side table) and a combined filter without skips or repeats', async () => {
    const events: JournalEvent[] = [];
    for (let i = 0; i < 11; i++) {
      events.push(...aRun({
        runId: `pager-${String(i).padStart(2, '0')}`, workflow: i % 2 ? 'pager-odd' : 'pager-even', at: T0 - 5 * DAY - Math.floor(i / 3) * MINUTE,
        send: { relayer: 'pager', txHash: aTxHash(`pager-${i}`) },
      }));
    }
    await srv.append(events);
    const expected = Array.from({ length: 11 }, (_, i) => `pager-${String(i).padStart(2, '0')}`)
      .sort((a, b) => {
        const ia = Number(a.slice(6));
        const ib = Number(b.slice(6));
        return Math.floor(ia / 3) - Math.floor(ib / 3) || (a < b ? 1 : -1);
      });
    expect(await allRunIds(srv, 'relayer=pager&limit=3')).toEqual(expected);
    expect(await allRunIds(srv, 'step_id=submit_tx&relayer=pager&limit=2')).toEqual(expected);
    expect(await allRunIds(srv, 'relayer=pager&workflow=pager-odd&limit=2')).toEqual(expected.filter((id) => Number(id.slice(6)) % 2 === 1));
  });

  it('a page of exactly the remaining rows says has_more false', async () => {
    await srv.append(manyRuns(4, { prefix: 'exact', workflow: 'exact' }));
    const first = await srv.get('/api/history/runs?workflow=exact&limit=2');
    expect(first.body.has_more).toBe(true);
    const second = await srv.get(`/api/history/runs?workflow=exact&limit=2&cursor=${encodeURIComponent(first.body.cursor)}`);
    expect(second.body.items.map((r: RunItem) => r.run_id)).toEqual(['exact-0002', 'exact-0003']);
    expect(second.body).toMatchObject({ has_more: false, cursor: null });
  });

  it('never skips or repeats a row that existed at the start while runs arrive between page requests', async () => {
    const start = T0 + 10 * DAY;
    // 15 runs, one minute apart, some sharing times.
    const initial: JournalEvent[] = [];
    for (let i = 0; i < 15; i++) initial.push(...aRun({ runId: `live-${String(i).padStart(2, '0')}`, workflow: 'busy', at: start - Math.floor(i / 3) * MINUTE }));
    await srv.append(initial);
    const existing = (await allRunIds(srv, 'workflow=busy&limit=500'));
    expect(existing).toHaveLength(15);

    const collected: string[] = [];
    let cursor: string | null = null;
    let round = 0;
    do {
      const res = await srv.get(`/api/history/runs?workflow=busy&limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      collected.push(...res.body.items.map((r: RunItem) => r.run_id));
      cursor = res.body.cursor;
      round++;
      // Between pages: newer runs, older runs, and runs that tie with the page boundary arrive.
      const last: RunItem | undefined = res.body.items[res.body.items.length - 1];
      const lastAt = last ? Date.parse(last.created_at) : start;
      await srv.append([
        ...aRun({ runId: `new-newer-${round}`, workflow: 'busy', at: start + round * HOUR }),
        ...aRun({ runId: `new-older-${round}`, workflow: 'busy', at: start - DAY - round * MINUTE }),
        ...aRun({ runId: `zz-tie-${round}`, workflow: 'busy', at: lastAt }), // sorts before the boundary row: not on later pages
        ...aRun({ runId: `aa-tie-${round}`, workflow: 'busy', at: lastAt }), // sorts after it: still ahead
      ]);
    } while (cursor && round < 50);

    expect(round).toBeLessThan(50);
    for (const id of existing) expect({ id, times: collected.filter((c) => c === id).length }).toEqual({ id, times: 1 });
    expect(new Set(collected).size).toBe(collected.length);
    // Rows that arrived older than the position reached are still listed (they were ahead of the cursor).
    expect(collected).toEqual(expect.arrayContaining(['new-older-1', 'aa-tie-1']));
    expect(collected.some((id) => id.startsWith('new-newer-'))).toBe(false);
  });
});

describe('GET /api/history/*: bad input is a 400 naming the parameter', () => {
  let srv: TestServer;
  let goodCursor: string;
  beforeAll(async () => {
    srv = await startTestServer();
    await srv.append(manyRuns(3, { prefix: 'bad' }));
    goodCursor = (await srv.get('/api/history/runs?limit=1')).body.cursor;
  });
  afterAll(() => srv.close());

  const flip = (text: string, at: number): string => {
    const c = text[at]!;
    return text.slice(0, at) + (c === 'A' ? 'B' : 'A') + text.slice(at + 1);
  };

  const cases: Array<[string, () => string, string]> = [
    ['an unknown parameter', () => 'nope=1', 'nope'],
    ['a parameter named in another case', () => 'Status=failed', 'Status'],
    ['a malformed cursor', () => 'cursor=not-a-cursor', 'cursor'],
    ['a cursor of random base64', () => 'cursor=eyJhIjoxfQ.AAAAAAAAAAAAAAAAAAAAAA', 'cursor'],
    ['a cursor with its payload tampered', () => `cursor=${encodeURIComponent(flip(goodCursor, 2))}`, 'cursor'],
    ['a cursor with its signature tampered', () => `cursor=${encodeURIComponent(flip(goodCursor, goodCursor.length - 3))}`, 'cursor'],
    ['a truncated cursor', () => `cursor=${encodeURIComponent(goodCursor.slice(0, -1))}`, 'cursor'],
    ['an empty cursor', () => 'cursor=', 'cursor'],
    ['limit 0', () => 'limit=0', 'limit'],
    ['limit 501', () => 'limit=501', 'limit'],
    ['limit abc', () => 'limit=abc', 'limit'],
    ['limit negative', () => 'limit=-1', 'limit'],
    ['limit fractional', () => 'limit=2.5', 'limit'],
    ['a bad duration', () => 'since=5x', 'since'],
    ['a zero duration', () => 'since=0h', 'since'],
    ['a bad time', () => 'since=yesterday', 'since'],
    ['a time without zone', () => 'until=2026-03-01T12:00:00', 'until'],
    ['an impossible month', () => 'until=2026-13-01T00:00:00Z', 'until'],
    ['an impossible day (Feb 30)', () => 'since=2026-02-30T00:00:00Z', 'since'],
    ['a bad enum: status', () => 'status=bogus', 'status'],
    ['a bad enum: session', () => 'session=bogus', 'session'],
    ['a bad enum: approval_status', () => 'approval_status=maybe', 'approval_status'],
    ['a malformed run_id filter', () => `run_id=${encodeURIComponent('bad id')}`, 'run_id'],
    ['a too long run_id filter', () => `run_id=${'a'.repeat(129)}`, 'run_id'],
    ['a malformed step_id filter', () => `step_id=${encodeURIComponent('-x/y')}`, 'step_id'],
    ['a non-integer block', () => 'block=abc', 'block'],
    ['a negative block', () => 'block=-5', 'block'],
    ['a repeated parameter', () => 'status=failed&status=succeeded', 'status'],
    ['a repeated limit', () => 'limit=1&limit=2', 'limit'],
    ['an empty workflow', () => 'workflow=', 'workflow'],
    ['a bracketed parameter name', () => 'status[]=failed', 'status[]'],
    ['a nested parameter name', () => 'status[a]=failed', 'status[a]'],
  ];

  it.each(cases)('%s', async (_name, query, param) => {
    const res = await srv.get(`/api/history/runs?${query()}`);
    expect({ status: res.status, type: res.headers.get('content-type') }).toEqual({ status: 400, type: expect.stringMatching(/application\/json/) });
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(typeof res.body.error).toBe('string');
    expect(res.body.error).toContain(param);
  });

  it('a good cursor is accepted (the 400s above are about the cursor, not the route)', async () => {
    const res = await srv.get(`/api/history/runs?limit=1&cursor=${encodeURIComponent(goodCursor)}`);
    expect(res.status).toBe(200);
    expect(res.body.items.map((r: RunItem) => r.run_id)).toEqual(['bad-0001']);
  });

  it.each([
    ['a space in the id', '/api/history/runs/bad%20id/timeline'],
    ['a 200-character id', `/api/history/runs/${'a'.repeat(200)}/timeline`],
    ['an id starting with a dot', '/api/history/runs/.hidden/timeline'],
    ['an id with a slash (encoded)', '/api/history/runs/a%2Fb/timeline'],
  ])('a malformed run id on the timeline route is a 400 (%s)', async (_name, path) => {
    const res = await srv.get(path);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body.error).toMatch(/run.?id/);
  });

  it('an unknown run on the timeline route is 404 { error: "run not found" }', async () => {
    const res = await srv.get('/api/history/runs/no-such-run/timeline');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'run not found' });
  });

  it('an unknown /api route is a JSON 404', async () => {
    for (const path of ['/api/xyz', '/api/history/nope', '/api/history/runs/x/y/z']) {
      const res = await srv.get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(typeof res.body.error).toBe('string');
    }
  });

  it('a malformed percent-encoding in the path is a 4xx, never a 500', async () => {
    for (const path of ['/api/history/runs/%E0%A4%A/timeline', '/api/history/runs/%/timeline', '/%E0%A4%A']) {
      const res = await srv.get(path);
      expect({ path, clientError: res.status >= 400 && res.status < 500 }).toEqual({ path, clientError: true });
    }
  });
});

describe.each(E2E_STORAGES)('GET /api/history/runs/:id/timeline, on %s', (_name, freshStorage) => {
  let srv: TestServer;
  const TX = aTxHash('timeline-send');
  beforeAll(async () => {
    srv = await startTestServer({ storage: await freshStorage() });
    await srv.append([
      ...aRun({
        runId: 'tl-1', workflow: 'payouts', at: T0, network: 'sepolia', block: 7_000_123,
        trigger: { kind: 'webhook', summary: 'POST /hooks/payouts', payload: { amount: '5' } },
        conditions: [{ name: 'amount_above_min', passed: true }, { name: 'not_paused', passed: false, detail: 'paused' }],
        steps: [{
          stepId: 'fetch_quote', stepType: 'http_call', input: { url: 'https://api.example.com/quote' },
          failedAttempts: 1, retryError: { kind: 'http_error', message: 'HTTP 503' }, output: { price: '1800' },
        }],
        approval: { decision: 'approved', by: 'alice', reason: 'looks right', message: 'pay 5 wei?' },
        send: {
          relayer: 'ops', network: 'sepolia', chainId: 11155111, txHash: TX, valueWei: '5', idempotencyKey: 'tl-1:pay',
          simulation: { ok: true, gasEstimate: '21000' },
          budgetChecks: [{ budget: 'daily_gas', spentWei: '100', capWei: '1000', allowed: true }],
        },
        reorg: { block: 7_000_123, removedBlockHash: '0xdead', steps: [{ stepId: 'recheck_balance', output: { ok: true } }] },
      }),
      ...aRun({
        runId: 'tl-parked', at: T0 + HOUR, steps: [],
        send: { status: 'submitted', txHash: aTxHash('parked-send') },
        park: { waitKind: 'tx', expiresAt: iso(T0 + 2 * HOUR) },
      }),
      ...aRun({
        runId: 'tl-delay', at: T0 + 2 * HOUR, steps: [{ stepId: 'wait_a_bit', stepType: 'delay', unfinished: true }],
        park: { waitKind: 'delay', dueAt: iso(T0 + 3 * HOUR) },
      }),
    ]);
  });
  afterAll(() => srv.close());

  it('answers { run, events } with the four kinds in chronological order', async () => {
    const res = await srv.get('/api/history/runs/tl-1/timeline');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['events', 'run']);
    const kinds = res.body.events.map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(['trigger', 'step', 'approval', 'step', 'reorg_step']);
    const times = res.body.events.map((e: { at: string }) => e.at);
    expect([...times].sort()).toEqual(times);
    for (const t of times) expect(t).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    // The run is the same item the list shows.
    const listed = (await srv.get('/api/history/runs?run_id=tl-1')).body.items[0];
    expect(res.body.run).toEqual(listed);
  });

  it('shows the trigger with its payload and condition results', async () => {
    const { events } = (await srv.get('/api/history/runs/tl-1/timeline')).body;
    expect(events[0]).toMatchObject({
      kind: 'trigger', at: iso(T0),
      trigger: { kind: 'webhook', summary: 'POST /hooks/payouts', payload: { amount: '5' } },
      conditions: [{ name: 'amount_above_min', passed: true }, { name: 'not_paused', passed: false, detail: 'paused' }],
    });
  });

  it('shows a retried step with every attempt, its input and output', async () => {
    const { events } = (await srv.get('/api/history/runs/tl-1/timeline')).body;
    const fetch = events[1];
    expect(fetch).toMatchObject({
      kind: 'step', step_run_id: 'tl-1.fetch_quote', step_id: 'fetch_quote', step_type: 'http_call', status: 'succeeded',
      input: { url: 'https://api.example.com/quote' }, output: { price: '1800' }, error: null, simulation: null,
      budget_checks: [], sends: [], wait: null,
    });
    expect(fetch.attempts).toHaveLength(2);
    expect(fetch.attempts[0]).toMatchObject({ attempt: 1, status: 'failed', error: { kind: 'http_error', message: 'HTTP 503' } });
    expect(fetch.attempts[1]).toMatchObject({ attempt: 2, status: 'succeeded', error: null });
    for (const a of fetch.attempts) expect(typeof a.started_at).toBe('string');
    expect(fetch.attempts[0].finished_at <= fetch.attempts[1].started_at).toBe(true);
  });

  it('shows the approval decision: who and why', async () => {
    const { events } = (await srv.get('/api/history/runs/tl-1/timeline')).body;
    expect(events[2]).toMatchObject({
      kind: 'approval',
      approval: {
        approval_id: 'tl-1.approval', run_id: 'tl-1', workflow: 'payouts', status: 'approved', message: 'pay 5 wei?',
        decided_by: 'alice', reason: 'looks right',
      },
    });
    expect(typeof events[2].approval.decided_at).toBe('string');
  });

  it('shows a send step with simulation, budget checks and its send attempt', async () => {
    const { events } = (await srv.get('/api/history/runs/tl-1/timeline')).body;
    const send = events[3];
    expect(send).toMatchObject({
      kind: 'step', step_id: 'submit_tx', step_type: 'send', status: 'succeeded',
      simulation: { ok: true, gas_estimate: '21000' },
      budget_checks: [{ budget: 'daily_gas', spent_wei: '100', cap_wei: '1000', allowed: true }],
    });
    expect(send.sends).toHaveLength(1);
    expect(send.sends[0]).toMatchObject({
      send_id: 'tl-1.send', run_id: 'tl-1', step_run_id: 'tl-1.submit_tx', workflow: 'payouts', session: 'live',
      network: 'sepolia', chain_id: 11155111, relayer: 'ops', status: 'settled', outcome: 'confirmed', tx_hash: TX,
      idempotency_key: 'tl-1:pay', value_wei: '5', explorer_url: `https://sepolia.etherscan.io/tx/${TX}`,
    });
  });

  it('lists the reorg response steps against the run it affected', async () => {
    const { events } = (await srv.get('/api/history/runs/tl-1/timeline')).body;
    expect(events[4]).toMatchObject({
      kind: 'reorg_step', reorg_id: 'tl-1.reorg', step_id: 'recheck_balance', status: 'succeeded', output: { ok: true }, error: null,
    });
  });

  it('shows a run parked on a tx with the wait and the send still submitted', async () => {
    const res = await srv.get('/api/history/runs/tl-parked/timeline');
    expect(res.status).toBe(200);
    expect(res.body.run).toMatchObject({ status: 'waiting', wait_kind: 'tx' });
    const steps = res.body.events.filter((e: { kind: string }) => e.kind === 'step');
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ step_id: 'submit_tx', status: 'waiting' });
    expect(steps[0].wait).toMatchObject({ wait_kind: 'tx', expires_at: iso(T0 + 2 * HOUR), due_at: null });
    expect(typeof steps[0].wait.parked_at).toBe('string');
    expect(steps[0].sends[0]).toMatchObject({ status: 'submitted', outcome: null, tx_hash: aTxHash('parked-send') });
  });

  it('shows a run parked on a delay with its due time', async () => {
    const res = await srv.get('/api/history/runs/tl-delay/timeline');
    expect(res.body.run).toMatchObject({ status: 'waiting', wait_kind: 'delay' });
    const step = res.body.events.find((e: { kind: string }) => e.kind === 'step');
    expect(step).toMatchObject({ step_id: 'wait_a_bit', status: 'waiting', wait: { wait_kind: 'delay', due_at: iso(T0 + 3 * HOUR) } });
  });
});

describe.each(E2E_STORAGES)('redaction of run items and timelines, on %s', (_name, freshStorage) => {
  const DECLARED = 'tok-Declared-9f8e7d';
  const WORKFLOW_ENV = 'pk-Workflow-5a4b3c';
  const SHORT = 'Qz7';
  const LITERALS = ['literal-header-value', 'literal-token-value', '0xliteral-private-key'];
  let srv: TestServer;

  beforeAll(async () => {
    srv = await startTestServer({
      storage: await freshStorage(),
      config: {
        secrets: { api_token: { env: 'TEST_TOKEN' } },
        workflows: {
          payouts: { trigger: { kind: 'manual' }, steps: [{ id: 'call', type: 'http_call', url: 'https://payouts.example', headers: { Authorization: { env: 'PAYOUT_API_KEY' } } }] },
          alerts: { trigger: { kind: 'manual' }, steps: [{ id: 'notify', type: 'http_call', url: 'https://alerts.example', headers: { 'X-Short': { env: 'SHORT_SECRET' } } }] },
        },
      },
      env: { TEST_TOKEN: DECLARED, PAYOUT_API_KEY: WORKFLOW_ENV, SHORT_SECRET: SHORT },
    });
    await srv.append(aRun({
      runId: 'secret-run', workflow: 'payouts', at: T0, contract: `0xc0ffee-${DECLARED}`,
      trigger: { kind: 'webhook', summary: `POST with ${WORKFLOW_ENV}`, payload: { note: `token is ${DECLARED}`, key: WORKFLOW_ENV, short: SHORT, short_inside: `a${SHORT}b` } },
      steps: [{
        stepId: 'call_api',
        input: {
          url: `https://payouts.example/?key=${WORKFLOW_ENV}`,
          headers: { 'x-api-key': LITERALS[0] },
          token: LITERALS[1],
          private_key: LITERALS[2],
        },
        output: { message: `called with Bearer ${DECLARED} ok`, echoed: WORKFLOW_ENV, short: SHORT, short_inside: `x${SHORT}y`, by_key: { [DECLARED]: 'x' } },
      }, {
        stepId: 'notify', error: { kind: 'http_error', message: `401 for key ${WORKFLOW_ENV}` },
      }],
      approval: { message: `approve with ${DECLARED}?`, decision: 'approved', by: 'alice', reason: `saw ${WORKFLOW_ENV}` },
      failure: { kind: 'http_error', message: `failed using ${DECLARED}` },
      reorg: { steps: [{ stepId: 'recheck', output: { seen: `${DECLARED}/${WORKFLOW_ENV}` } }] },
    }));
  });
  afterAll(() => srv.close());

  const secretsIn = (text: string): string[] => [DECLARED, WORKFLOW_ENV, ...LITERALS].filter((s) => text.includes(s));

  it('run items never carry a secret', async () => {
    const res = await srv.get('/api/history/runs');
    expect(res.status).toBe(200);
    expect(secretsIn(res.text)).toEqual([]);
    expect(res.body.items[0].contract).toBe('0xc0ffee-<redacted>');
  });

  it('the timeline body never carries a secret', async () => {
    const res = await srv.get('/api/history/runs/secret-run/timeline');
    expect(res.status).toBe(200);
    expect(secretsIn(res.text)).toEqual([]);
    expect(res.body.run.contract).toBe('0xc0ffee-<redacted>');
  });

  it('replaces a declared secret and a workflow-referenced env value inside strings', async () => {
    const { events } = (await srv.get('/api/history/runs/secret-run/timeline')).body;
    const trigger = events.find((e: { kind: string }) => e.kind === 'trigger');
    expect(trigger.trigger.summary).toBe('POST with <redacted>');
    expect(trigger.trigger.payload).toMatchObject({ note: 'token is <redacted>', key: '<redacted>' });
    const call = events.find((e: { step_id?: string }) => e.step_id === 'call_api');
    expect(call.output).toMatchObject({ message: 'called with Bearer <redacted> ok', echoed: '<redacted>', by_key: { '<redacted>': 'x' } });
    expect(call.input.url).toBe('https://payouts.example/?key=<redacted>');
    const notify = events.find((e: { step_id?: string }) => e.step_id === 'notify');
    expect(notify.error).toEqual({ kind: 'http_error', message: '401 for key <redacted>' });
    expect(notify.attempts[0].error).toEqual({ kind: 'http_error', message: '401 for key <redacted>' });
    const approval = events.find((e: { kind: string }) => e.kind === 'approval');
    expect(approval.approval).toMatchObject({ message: 'approve with <redacted>?', reason: 'saw <redacted>' });
    const reorg = events.find((e: { kind: string }) => e.kind === 'reorg_step');
    expect(reorg.output).toEqual({ seen: '<redacted>/<redacted>' });
  });

  it('replaces secret-typed fields of step input whole', async () => {
    const { events } = (await srv.get('/api/history/runs/secret-run/timeline')).body;
    const call = events.find((e: { step_id?: string }) => e.step_id === 'call_api');
    expect(call.input).toEqual({
      url: 'https://payouts.example/?key=<redacted>', headers: '<redacted>', token: '<redacted>', private_key: '<redacted>',
    });
  });

  it('replaces a value shorter than 4 characters only where it is the whole string', async () => {
    const { events } = (await srv.get('/api/history/runs/secret-run/timeline')).body;
    const trigger = events.find((e: { kind: string }) => e.kind === 'trigger');
    expect(trigger.trigger.payload).toMatchObject({ short: '<redacted>', short_inside: `a${SHORT}b` });
    const call = events.find((e: { step_id?: string }) => e.step_id === 'call_api');
    expect(call.output).toMatchObject({ short: '<redacted>', short_inside: `x${SHORT}y` });
  });
});

describe('probes and the page', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(() => srv.close());

  it('GET /live is 200', async () => {
    const res = await srv.get('/live');
    expect(res.status).toBe(200);
  });

  it('GET /health is 200 with the database ok', async () => {
    const res = await srv.get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', storage: 'sqlite', checks: { database: 'ok' } });
  });

  it('GET / returns the HTML page', async () => {
    const res = await srv.get('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.text).toMatch(/<html/i);
  });

  it('/api responses are not cached', async () => {
    const res = await srv.get('/api/history/runs');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});
