/**
 * The history lists other than runs through the real HTTP server on a real SQLite file and on PostgreSQL: /api/history/txs,
 * /approvals, /waiting, /reorgs, /replays, /workflows (SPEC: History API; CONTRACT sections 4 and 5).
 */
import { aRun, aSession, aTimedRun, aTxHash, aWorkflowState, DAY, HOUR, iso, MINUTE, SECOND } from '../../mothers/journal-events';
import { startTestServer, type TestServer } from '../../support/server';
import { E2E_STORAGES } from '../../support/stores';

const SEND_FIELDS = [
  'send_id', 'run_id', 'step_run_id', 'workflow', 'session', 'network', 'chain_id', 'relayer', 'status', 'outcome',
  'tx_hash', 'idempotency_key', 'explorer_url', 'to', 'value_wei', 'token_transfer', 'created_at', 'updated_at',
];
const APPROVAL_FIELDS = [
  'approval_id', 'run_id', 'step_run_id', 'workflow', 'status', 'message', 'requested_at', 'expires_at', 'decided_at', 'decided_by', 'reason',
];
const WAITING_FIELDS = ['run_id', 'workflow', 'wait_kind', 'step_run_id', 'parked_at', 'due_at', 'expires_at'];
const REORG_FIELDS = ['reorg_id', 'run_id', 'workflow', 'network', 'block', 'removed_block_hash', 'depth', 'created_at', 'steps', 'block_url', 'removed_block_url'];
const REPLAY_FIELDS = ['session_id', 'kind', 'workflow', 'created_at', 'finished_at', 'run_count', 'from_block', 'to_block'];
const WORKFLOW_FIELDS = [
  'workflow', 'paused', 'trigger', 'last_run_at', 'last_success_at', 'last_failure_at', 'success_count', 'failure_count',
  'runs_waiting', 'median_duration_ms', 'p95_duration_ms', 'tx_count', 'recent_error_kind', 'cursor_block', 'head_block', 'lag_blocks',
];

const sorted = (fields: readonly string[]): string[] => [...fields].sort();
type Item = Record<string, unknown>;

/** Three days before the server's clock, to the second: `since=7d` includes it, `since=1d` does not. */
const BASE = Math.floor((Date.now() - 3 * DAY) / SECOND) * SECOND;
const SECRET = 'per-install-secret-9f3a';

describe.each(E2E_STORAGES)('GET /api/history/{txs,approvals,waiting,reorgs,replays,workflows}, on %s', (_name, freshStorage) => {
  let srv: TestServer;
  const ok = async (path: string): Promise<{ items: Item[]; cursor: string | null; has_more: boolean }> => {
    const res = await srv.get(path);
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(['cursor', 'has_more', 'items']);
    return res.body;
  };
  const ids = async (path: string, field: string): Promise<unknown[]> => (await ok(path)).items.map((i) => i[field]);

  beforeAll(async () => {
    srv = await startTestServer({
      storage: await freshStorage(),
      config: {
        secrets: { leak: { env: 'LEAKY' } },
        networks: {
          // an override of a network the built-in map knows: the configured explorer wins
          mainnet: { chain_id: 1, rpc: [{ env: 'MAINNET_RPC' }], explorer: 'https://my-explorer.example/mainnet/' },
        },
        workflows: {
          payouts: { trigger: { kind: 'cron', schedule: '0 * * * *' }, steps: [{ id: 'noop', type: 'delay', duration: '1s' }] },
          idle: { trigger: { kind: 'webhook', auth: { hmac: { env: 'IDLE_HOOK' } } }, steps: [{ id: 'noop', type: 'delay', duration: '1s' }] },
        },
      },
      env: { MAINNET_RPC: 'http://127.0.0.1:1/rpc-key-abc', LEAKY: SECRET, IDLE_HOOK: 'idle-hook-secret' },
    });
    await srv.append([
      aWorkflowState({ workflow: 'keeper', at: BASE - DAY, trigger: 'event', cursorBlock: 100, headBlock: 112 }),
      ...aRun({ runId: 'old-1', workflow: 'payouts', at: BASE - 10 * DAY, send: { sendId: 'tx-old', network: 'sepolia', txHash: aTxHash('old') } }),
      ...aRun({ runId: 'r-sep', workflow: 'payouts', at: BASE, send: { sendId: 'tx-sep', network: 'sepolia', txHash: aTxHash('sep'), valueWei: '50000000000000000' } }),
      ...aRun({ runId: 'r-main', workflow: 'payouts', at: BASE + MINUTE, send: { sendId: 'tx-main', network: 'mainnet', chainId: 1, relayer: 'treasury', txHash: aTxHash('main'), outcome: 'reverted' } }),
      ...aRun({ runId: 'r-priv', workflow: 'keeper', at: BASE + 2 * MINUTE, send: { sendId: 'tx-priv', network: 'private-net', chainId: 987_654, status: 'submitted', txHash: aTxHash('priv') } }),
      ...aRun({ runId: 'r-queued', workflow: 'keeper', at: BASE + 3 * MINUTE, sessionId: 'ses-1', session: 'replay', send: { sendId: 'tx-queued', status: 'queued' } }),
      ...aRun({ runId: 'r-ap', workflow: 'treasury', at: BASE + 4 * MINUTE, approval: { approvalId: 'ap-1', message: `sign with ${SECRET}` }, park: { waitKind: 'approval' } }),
      ...aRun({ runId: 'r-ap2', workflow: 'treasury', at: BASE + 5 * MINUTE, approval: { approvalId: 'ap-2', decision: 'approved', by: 'alice', reason: 'matches sheet' } }),
      ...aRun({ runId: 'w-delay', workflow: 'payouts', at: BASE + 6 * MINUTE, park: { waitKind: 'delay', dueAt: iso(BASE + HOUR) } }),
      ...aRun({ runId: 'r-rg', workflow: 'keeper', network: 'base', at: BASE + 7 * MINUTE, reorg: { reorgId: 'rg-1', removedBlockHash: aTxHash('gone'), steps: [{ stepId: 'recheck', output: { seen: SECRET } }] } }),
      ...aRun({ runId: 'r-rg2', workflow: 'payouts', network: 'sepolia', at: BASE + 8 * MINUTE, reorg: { reorgId: 'rg-2' } }),
      ...aSession({ sessionId: 'ses-1', kind: 'replay', workflow: 'keeper', at: BASE + 3 * MINUTE - SECOND, fromBlock: 10, toBlock: 20, finishedAt: BASE + HOUR }),
      ...aSession({ sessionId: 'ses-2', kind: 'test', workflow: 'payouts', at: BASE + 9 * MINUTE }),
      ...aTimedRun({ runId: 'k-fail', workflow: 'keeper', at: BASE + 10 * MINUTE, durationMs: 30 * SECOND, status: 'failed', errorKind: 'rpc_error' }),
    ]);
  });
  afterAll(() => srv.close());

  describe('/api/history/txs', () => {
    it('answers send attempts with exactly the CONTRACT fields, newest first', async () => {
      const page = await ok('/api/history/txs');
      for (const item of page.items) expect(Object.keys(item).sort()).toEqual(sorted(SEND_FIELDS));
      expect(page.items.map((s) => s.send_id)).toEqual(['tx-queued', 'tx-priv', 'tx-main', 'tx-sep', 'tx-old']);
      expect(page.items.find((s) => s.send_id === 'tx-sep')).toMatchObject({
        run_id: 'r-sep', workflow: 'payouts', network: 'sepolia', chain_id: 11155111, relayer: 'ops', status: 'settled',
        outcome: 'confirmed', value_wei: '50000000000000000', session: 'live', created_at: iso(BASE + 4 * SECOND),
      });
    });

    it('links a known network to its explorer, a configured override wins, an unknown network has none', async () => {
      const by = new Map((await ok('/api/history/txs')).items.map((s) => [s.send_id, s]));
      expect(by.get('tx-sep')!.explorer_url).toBe(`https://sepolia.etherscan.io/tx/${aTxHash('sep')}`);
      expect(by.get('tx-main')!.explorer_url).toBe(`https://my-explorer.example/mainnet/tx/${aTxHash('main')}`);
      expect(by.get('tx-priv')!.explorer_url).toBeNull();
      expect(by.get('tx-queued')!.explorer_url).toBeNull();
    });

    it('filters', async () => {
      expect(await ids('/api/history/txs?workflow=keeper', 'send_id')).toEqual(['tx-queued', 'tx-priv']);
      expect(await ids('/api/history/txs?network=mainnet', 'send_id')).toEqual(['tx-main']);
      expect(await ids('/api/history/txs?relayer=treasury', 'send_id')).toEqual(['tx-main']);
      expect(await ids('/api/history/txs?status=queued', 'send_id')).toEqual(['tx-queued']);
      expect(await ids('/api/history/txs?status=submitted', 'send_id')).toEqual(['tx-priv']);
      expect(await ids('/api/history/txs?status=settled&outcome=reverted', 'send_id')).toEqual(['tx-main']);
      expect(await ids('/api/history/txs?session=replay', 'send_id')).toEqual(['tx-queued']);
      expect(await ids('/api/history/txs?run_id=r-sep', 'send_id')).toEqual(['tx-sep']);
      expect(await ids(`/api/history/txs?tx_hash=${aTxHash('priv')}`, 'send_id')).toEqual(['tx-priv']);
      expect(await ids('/api/history/txs?since=7d', 'send_id')).toEqual(['tx-queued', 'tx-priv', 'tx-main', 'tx-sep']);
      expect(await ids('/api/history/txs?since=1d', 'send_id')).toEqual([]);
      expect(await ids(`/api/history/txs?since=${iso(BASE + MINUTE)}&until=${iso(BASE + 2 * MINUTE + 4 * SECOND)}`, 'send_id')).toEqual(['tx-priv', 'tx-main']);
    });

    it('pages with limit and cursor, no row twice', async () => {
      const first = await ok('/api/history/txs?limit=2');
      expect(first.items.map((s) => s.send_id)).toEqual(['tx-queued', 'tx-priv']);
      expect(first.has_more).toBe(true);
      const second = await ok(`/api/history/txs?limit=2&cursor=${encodeURIComponent(first.cursor!)}`);
      expect(second.items.map((s) => s.send_id)).toEqual(['tx-main', 'tx-sep']);
      const third = await ok(`/api/history/txs?limit=2&cursor=${encodeURIComponent(second.cursor!)}`);
      expect(third).toEqual({ items: [expect.objectContaining({ send_id: 'tx-old' })], cursor: null, has_more: false });
    });
  });

  it('/api/history/approvals: approval items, pending and decided, filters, redacted message', async () => {
    const page = await ok('/api/history/approvals');
    for (const item of page.items) expect(Object.keys(item).sort()).toEqual(sorted(APPROVAL_FIELDS));
    expect(page.items.map((a) => [a.approval_id, a.status])).toEqual([['ap-2', 'approved'], ['ap-1', 'pending']]);
    expect(page.items[0]).toMatchObject({ decided_by: 'alice', reason: 'matches sheet', run_id: 'r-ap2', workflow: 'treasury' });
    expect(page.items[1]!.message).toBe('sign with <redacted>');
    expect(JSON.stringify(page)).not.toContain(SECRET);
    expect(await ids('/api/history/approvals?status=pending', 'approval_id')).toEqual(['ap-1']);
    expect(await ids('/api/history/approvals?status=approved&workflow=treasury', 'approval_id')).toEqual(['ap-2']);
    expect(await ids('/api/history/approvals?workflow=payouts', 'approval_id')).toEqual([]);
    expect(await ids(`/api/history/approvals?since=${iso(BASE + 5 * MINUTE)}`, 'approval_id')).toEqual(['ap-2']);
  });

  it('/api/history/waiting: waiting items of runs parked now, filters', async () => {
    const page = await ok('/api/history/waiting');
    for (const item of page.items) expect(Object.keys(item).sort()).toEqual(sorted(WAITING_FIELDS));
    expect(page.items.map((w) => [w.run_id, w.wait_kind])).toEqual([['w-delay', 'delay'], ['r-ap', 'approval']]);
    expect(page.items[0]).toMatchObject({ workflow: 'payouts', due_at: iso(BASE + HOUR), expires_at: null, parked_at: iso(BASE + 6 * MINUTE + 3 * SECOND) });
    expect(await ids('/api/history/waiting?wait_kind=approval', 'run_id')).toEqual(['r-ap']);
    expect(await ids('/api/history/waiting?workflow=payouts', 'run_id')).toEqual(['w-delay']);
    expect(await ids('/api/history/waiting?wait_kind=tx', 'run_id')).toEqual([]);
    expect(await ids(`/api/history/waiting?until=${iso(BASE + 5 * MINUTE)}`, 'run_id')).toEqual(['r-ap']);
  });

  it('/api/history/reorgs: reorg responses with their steps, filters, redacted step output', async () => {
    const page = await ok('/api/history/reorgs');
    for (const item of page.items) {
      expect(Object.keys(item).sort()).toEqual(sorted(REORG_FIELDS));
      for (const step of item.steps as Item[]) expect(Object.keys(step).sort()).toEqual(['at', 'error', 'output', 'status', 'step_id']);
    }
    expect(page.items.map((r) => r.reorg_id)).toEqual(['rg-2', 'rg-1']);
    expect(page.items[1]).toMatchObject({
      run_id: 'r-rg', workflow: 'keeper', network: 'base', removed_block_hash: aTxHash('gone'),
      steps: [{ step_id: 'recheck', status: 'succeeded', output: { seen: '<redacted>' }, error: null }],
    });
    expect(JSON.stringify(page)).not.toContain(SECRET);
    expect(await ids('/api/history/reorgs?network=base', 'reorg_id')).toEqual(['rg-1']);
    expect(await ids('/api/history/reorgs?workflow=payouts', 'reorg_id')).toEqual(['rg-2']);
  });

  it('/api/history/replays: replay sessions with exactly the CONTRACT fields', async () => {
    const page = await ok('/api/history/replays');
    expect(page.items.map((s) => [s.session_id, s.kind, s.run_count])).toEqual([['ses-2', 'test', 0], ['ses-1', 'replay', 1]]);
    expect(page.items[1]).toMatchObject({ workflow: 'keeper', from_block: 10, to_block: 20, finished_at: iso(BASE + HOUR) });
    expect(await ids('/api/history/replays?kind=replay', 'session_id')).toEqual(['ses-1']);
    expect(await ids('/api/history/replays?workflow=payouts', 'session_id')).toEqual(['ses-2']);
    for (const item of page.items) expect(Object.keys(item).sort()).toEqual(sorted(REPLAY_FIELDS));
  });

  it('/api/history/workflows: one row per workflow, configured ones with no run included, paged by name', async () => {
    const page = await ok('/api/history/workflows');
    for (const item of page.items) expect(Object.keys(item).sort()).toEqual(sorted(WORKFLOW_FIELDS));
    expect(page.items.map((w) => w.workflow)).toEqual(['idle', 'keeper', 'payouts', 'treasury']);
    const by = new Map(page.items.map((w) => [w.workflow, w]));
    expect(by.get('idle')).toMatchObject({ trigger: 'webhook', last_run_at: null, success_count: 0, failure_count: 0, tx_count: 0, lag_blocks: null });
    expect(by.get('keeper')).toMatchObject({
      trigger: 'event', success_count: 3, failure_count: 1, recent_error_kind: 'rpc_error', tx_count: 1,
      cursor_block: 100, head_block: 112, lag_blocks: 12, last_failure_at: iso(BASE + 10 * MINUTE + 30 * SECOND),
    });
    expect(by.get('payouts')).toMatchObject({ trigger: 'cron', runs_waiting: 1, tx_count: 3, success_count: 4 });

    const first = await ok('/api/history/workflows?limit=3');
    expect(first.items.map((w) => w.workflow)).toEqual(['idle', 'keeper', 'payouts']);
    const next = await ok(`/api/history/workflows?limit=3&cursor=${encodeURIComponent(first.cursor!)}`);
    expect(next).toMatchObject({ cursor: null, has_more: false });
    expect(next.items.map((w) => w.workflow)).toEqual(['treasury']);
  });

  it.each([
    ['/api/history/txs?nope=1', 'nope'],
    ['/api/history/txs?status=confirmed', 'status'],
    ['/api/history/txs?outcome=lost', 'outcome'],
    ['/api/history/txs?session=prod', 'session'],
    ['/api/history/txs?run_id=bad%20id', 'run_id'],
    ['/api/history/txs?limit=0', 'limit'],
    ['/api/history/txs?since=yesterday', 'since'],
    ['/api/history/txs?status=queued&status=parked', 'status'],
    ['/api/history/txs?cursor=garbage', 'cursor'],
    ['/api/history/approvals?status=decided', 'status'],
    ['/api/history/approvals?until=2026-02-30T00:00:00Z', 'until'],
    ['/api/history/waiting?wait_kind=sleep', 'wait_kind'],
    ['/api/history/waiting?limit=501', 'limit'],
    ['/api/history/reorgs?status=ok', 'status'],
    ['/api/history/replays?kind=live', 'kind'],
    ['/api/history/workflows?workflow=payouts', 'workflow'],
    ['/api/history/workflows?cursor=garbage', 'cursor'],
  ])('%s is a 400 naming %s', async (path, name) => {
    const res = await srv.get(path);
    expect({ status: res.status, type: res.headers.get('content-type') }).toEqual({ status: 400, type: expect.stringMatching(/application\/json/) });
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(res.body.error).toContain(name);
  });

  it('a cursor of one list is a 400 on another', async () => {
    const runs = (await ok('/api/history/runs?limit=1')).cursor!;
    const txs = (await ok('/api/history/txs?limit=1')).cursor!;
    const workflows = (await ok('/api/history/workflows?limit=1')).cursor!;
    for (const [path, cursor] of [['txs', runs], ['approvals', txs], ['waiting', txs], ['reorgs', workflows], ['replays', txs], ['workflows', txs], ['runs', txs]] as const) {
      const res = await srv.get(`/api/history/${path}?cursor=${encodeURIComponent(cursor)}`);
      expect({ path, status: res.status, error: res.body?.error }).toEqual({ path, status: 400, error: expect.stringContaining('cursor') });
    }
  });
});
