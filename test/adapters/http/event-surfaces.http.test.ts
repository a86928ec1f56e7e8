/**
 * Chain events on the operator's surfaces through the real HTTP server on a real SQLite file and on PostgreSQL (#28):
 * the overview's cursor / head / lag from the engine's `workflow.state`, the log that started a run on its item and
 * timeline with explorer links, its reorg linkage, and the reorg responses with both blocks linked.
 */
import type { JournalEvent } from '../../../src/domain/journal/journal-event';
import { startTestServer, type TestServer } from '../../support/server';
import { E2E_STORAGES } from '../../support/stores';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const at = (s: number): string => new Date(Date.UTC(2026, 10, 20, 12, 0, s)).toISOString();
const hash = (c: string): string => `0x${c.repeat(64)}`;
const EXPLORER = 'https://explorer.devnet.example';

/** An event run as the engine's log poller journals it (CONTRACT 8.6), then one step and its end. */
function eventRun(runId: string, network: string, block: number, c: string, s: number): JournalEvent[] {
  return [
    {
      type: 'run.started', at: at(s), run_id: runId, workflow: 'deposits', session: 'live',
      trigger: {
        kind: 'event', summary: `Transfer at block ${block}`, payload: { from: `0x${'0'.repeat(40)}`, to: `0x${'7'.repeat(40)}`, value: '123456789012345678901' },
        block: { number: block, hash: hash(c), timestamp: 1_763_640_000 + s }, tx_hash: hash(c === 'a' ? 'b' : 'd'), log: { address: TOKEN, log_index: 3 },
      },
      network, contract: TOKEN, block,
    },
    { type: 'step.started', at: at(s + 1), run_id: runId, step_run_id: `${runId}.noop`, step_id: 'noop', step_type: 'delay', attempt: 1 },
    { type: 'step.finished', at: at(s + 2), run_id: runId, step_run_id: `${runId}.noop`, status: 'succeeded' },
    { type: 'run.finished', at: at(s + 2), run_id: runId, status: 'succeeded' },
  ] as JournalEvent[];
}

describe.each(E2E_STORAGES)('chain events on the API, on %s', (_name, freshStorage) => {
  let srv: TestServer;

  beforeAll(async () => {
    srv = await startTestServer({
      storage: await freshStorage(),
      config: {
        networks: {
          devnet: { chain_id: 31337, rpc: [{ env: 'DEVNET_RPC' }], explorer: 'https://explorer.devnet.example/' },
          // a chain the built-in explorer map does not know, without a configured explorer: no links
          privnet: { chain_id: 987654, rpc: [{ env: 'DEVNET_RPC' }] },
        },
        workflows: {
          deposits: {
            trigger: { kind: 'event', network: 'devnet', address: TOKEN, event: 'Transfer(address indexed from, address indexed to, uint256 value)', from_block: 0 },
            steps: [{ id: 'noop', type: 'delay', duration: '1s' }],
          },
          sweep: { trigger: { kind: 'manual' }, steps: [{ id: 'noop', type: 'delay', duration: '1s' }] },
        },
      },
      // Nothing answers there: the engine's own poller reads nothing, so the journal holds only what this test writes.
      env: { DEVNET_RPC: 'http://127.0.0.1:1' },
    });
    // What the engine's log poller journals: the head alone first, then the last block read with the head.
    await srv.append([
      { type: 'workflow.state', at: at(0), workflow: 'deposits', trigger: 'event', network: 'devnet', head_block: 130 },
      { type: 'workflow.state', at: at(2), workflow: 'deposits', trigger: 'event', network: 'devnet', cursor_block: 118, head_block: 131 },
    ] as JournalEvent[]);
    await srv.append([
      ...eventRun('ev-1', 'devnet', 118, 'a', 10),
      ...eventRun('ev-priv', 'privnet', 50, 'c', 20),
      { type: 'run.started', at: at(25), run_id: 'man-1', workflow: 'sweep', session: 'live', trigger: { kind: 'manual', summary: 'manual by test' } },
      // A reorg removed ev-1's block: the response names the run, its on_reorg step ran (CONTRACT section 3's shapes).
      { type: 'reorg.response', at: at(30), reorg_id: 'rg-1', run_id: 'ev-1', workflow: 'deposits', network: 'devnet', block: 118, removed_block_hash: hash('a') },
      { type: 'reorg.step', at: at(31), reorg_id: 'rg-1', step_id: 'undo', status: 'succeeded', output: { undone: true } },
    ] as JournalEvent[]);
  });
  afterAll(() => srv.close());

  it('GET /api/workflows and /api/history/workflows show an event workflow\'s cursor, head and lag', async () => {
    const configured = (await srv.get('/api/workflows')).body.items as Json[];
    expect(configured.map((w) => [w.workflow, w.trigger, w.network, w.cursor_block, w.head_block, w.lag_blocks])).toEqual([
      ['deposits', 'event', 'devnet', 118, 131, 13],
      ['sweep', 'manual', null, null, null, null],
    ]);
    const overview = (await srv.get('/api/history/workflows')).body.items as Json[];
    expect(overview.find((w) => w.workflow === 'deposits')).toMatchObject({ trigger: 'event', cursor_block: 118, head_block: 131, lag_blocks: 13 });
  });

  it('the run item\'s network, contract and block come from the log, and filter the runs', async () => {
    const runs = (await srv.get('/api/history/runs?workflow=deposits')).body.items as Json[];
    expect(runs.find((r) => r.run_id === 'ev-1')).toMatchObject({ trigger: 'event', network: 'devnet', contract: TOKEN, block: 118 });
    expect((await srv.get('/api/history/runs?block=118')).body.items.map((r: Json) => r.run_id)).toEqual(['ev-1']);
    expect((await srv.get(`/api/history/runs?contract=${TOKEN}&network=privnet`)).body.items.map((r: Json) => r.run_id)).toEqual(['ev-priv']);
  });

  it('the timeline\'s trigger shows the log (block, hash, time, tx, log index) with explorer links, and the reorg naming the run', async () => {
    const res = await srv.get('/api/history/runs/ev-1/timeline');
    expect(res.status).toBe(200);
    const trigger = (res.body.events as Json[]).find((e) => e.kind === 'trigger');
    expect(trigger.log).toEqual({
      network: 'devnet', contract: TOKEN, block_number: 118, block_hash: hash('a'), block_time: new Date((1_763_640_000 + 10) * 1000).toISOString(),
      tx_hash: hash('b'), log_index: 3,
      tx_url: `${EXPLORER}/tx/${hash('b')}`, block_url: `${EXPLORER}/block/${hash('a')}`, contract_url: `${EXPLORER}/address/${TOKEN}`,
    });
    // The value stays exact (a decimal string past 2^53).
    expect(trigger.trigger.payload.value).toBe('123456789012345678901');
    expect(trigger.reorgs).toEqual([{
      reorg_id: 'rg-1', created_at: at(30), network: 'devnet', block: 118, removed_block_hash: hash('a'),
      block_url: `${EXPLORER}/block/118`, removed_block_url: `${EXPLORER}/block/${hash('a')}`,
    }]);
    const reorgStep = (res.body.events as Json[]).find((e) => e.kind === 'reorg_step');
    expect(reorgStep).toMatchObject({ reorg_id: 'rg-1', step_id: 'undo', status: 'succeeded', output: { undone: true } });
  });

  it('a network without a known explorer shows the log with no links; a run of another trigger has no log', async () => {
    const trigger = ((await srv.get('/api/history/runs/ev-priv/timeline')).body.events as Json[]).find((e) => e.kind === 'trigger');
    expect(trigger.log).toMatchObject({ network: 'privnet', block_number: 50, block_hash: hash('c'), tx_hash: hash('d'), tx_url: null, block_url: null, contract_url: null });
    expect(trigger.reorgs).toEqual([]);
    const manual = ((await srv.get('/api/history/runs/man-1/timeline')).body.events as Json[]).find((e) => e.kind === 'trigger');
    expect([manual.trigger.kind, manual.log, manual.reorgs]).toEqual(['manual', null, []]);
  });

  it('GET /api/history/reorgs lists the response with its steps and both blocks linked', async () => {
    const items = (await srv.get('/api/history/reorgs')).body.items as Json[];
    expect(items).toEqual([{
      reorg_id: 'rg-1', run_id: 'ev-1', workflow: 'deposits', network: 'devnet', block: 118, removed_block_hash: hash('a'), depth: null, created_at: at(30),
      steps: [{ step_id: 'undo', status: 'succeeded', output: { undone: true }, error: null, at: at(31) }],
      block_url: `${EXPLORER}/block/118`, removed_block_url: `${EXPLORER}/block/${hash('a')}`,
    }]);
  });
});
