/**
 * Chain events on the operator's surfaces through the real HTTP server on a real SQLite file (issue #28 part 5):
 * the overview's cursor / head / lag from the engine's `workflow.state`, the log that started a run on its item and
 * timeline with explorer links, its reorg linkage, and the reorg responses with both blocks linked.
 */
import type { JournalEvent } from '../../../src/domain/journal/journal-event';
import { startTestServer, type TestServer } from '../../support/server';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const at = (s: number): string => new Date(Date.UTC(2026, 10, 20, 12, 0, s)).toISOString();
const hash = (c: string): string => `0x${c.repeat(64)}`;

describe('chain events on the API', () => {
  let srv: TestServer;

  beforeAll(async () => {
    srv = await startTestServer({
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
});
