/**
 * The log an event run started from, and its reorg linkage, on the timeline (issue #28 part 5), over the in-memory
 * journal: the trigger shows the log's block, transaction and place with explorer links resolved through the
 * network's configured chain id, secrets in the log redacted, and every reorg response naming the run.
 */
import { GetRunTimeline } from '../../src/application/history/get-run-timeline.use-case';
import type { TriggerEvent } from '../../src/application/history/timeline';
import { ExplorerLinks } from '../../src/domain/explorer';
import type { JournalEvent } from '../../src/domain/journal/journal-event';
import { REDACTED, Redactor } from '../../src/domain/redactor';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { iso, T0 } from '../mothers/journal-events';

const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const hash = (c: string): string => `0x${c.repeat(64)}`;
const SECRET = 'sk-live-987654';

function eventStart(runId: string, network: string): JournalEvent {
  return {
    type: 'run.started', at: iso(T0), run_id: runId, workflow: 'deposits', session: 'live',
    trigger: {
      kind: 'event', summary: 'Transfer at block 118', payload: { memo: `paid with ${SECRET}`, value: '340282366920938463463374607431768211455' },
      block: { number: 118, hash: hash('a'), timestamp: T0 / 1000 - 12 }, tx_hash: hash('b'), log: { address: TOKEN, log_index: 0 },
    },
    network, contract: TOKEN, block: 118,
  } as JournalEvent;
}

describe('the timeline of an event run', () => {
  let journal: InMemoryJournal;
  let timeline: GetRunTimeline;
  const triggerOf = async (runId: string): Promise<TriggerEvent> => (await timeline.execute(runId)).events[0] as TriggerEvent;

  beforeEach(() => {
    journal = new InMemoryJournal();
    // `mainnet-fork` is no name the built-in map knows: its configured chain id (1) finds the explorer.
    timeline = new GetRunTimeline(journal, new ExplorerLinks(new Map(), new Map([['mainnet-fork', 1]])), new Redactor([SECRET]));
  });

  it('shows the log with links through the network\'s chain id, the payload exact and redacted', async () => {
    await journal.append([eventStart('ev-1', 'mainnet-fork')]);
    const trigger = await triggerOf('ev-1');
    expect(trigger.log).toEqual({
      network: 'mainnet-fork', contract: TOKEN, block_number: 118, block_hash: hash('a'), block_time: iso(T0 - 12_000), tx_hash: hash('b'),
      log_index: 0, tx_url: `https://etherscan.io/tx/${hash('b')}`, block_url: `https://etherscan.io/block/${hash('a')}`,
      contract_url: `https://etherscan.io/address/${TOKEN}`,
    });
    expect(trigger.trigger.payload).toEqual({ memo: `paid with ${REDACTED}`, value: '340282366920938463463374607431768211455' });
    expect(trigger.reorgs).toEqual([]);
  });

  it('lists every reorg response naming the run, oldest first, with both blocks linked', async () => {
    await journal.append([
      eventStart('ev-2', 'mainnet-fork'),
      { type: 'run.finished', at: iso(T0 + 1000), run_id: 'ev-2', status: 'succeeded' },
      { type: 'reorg.response', at: iso(T0 + 5000), reorg_id: 'rg-b', run_id: 'ev-2', workflow: 'deposits', network: 'mainnet-fork', block: 118, removed_block_hash: hash('a') },
      { type: 'reorg.response', at: iso(T0 + 9000), reorg_id: 'rg-c', run_id: 'ev-2', workflow: 'deposits', network: 'mainnet-fork', block: 118 },
    ] as JournalEvent[]);
    const trigger = await triggerOf('ev-2');
    expect(trigger.reorgs).toEqual([
      { reorg_id: 'rg-b', created_at: iso(T0 + 5000), network: 'mainnet-fork', block: 118, removed_block_hash: hash('a'),
        block_url: 'https://etherscan.io/block/118', removed_block_url: `https://etherscan.io/block/${hash('a')}` },
      { reorg_id: 'rg-c', created_at: iso(T0 + 9000), network: 'mainnet-fork', block: 118, removed_block_hash: null,
        block_url: 'https://etherscan.io/block/118', removed_block_url: null },
    ]);
  });

  it('a network with no known explorer: the log without links', async () => {
    await journal.append([eventStart('ev-3', 'private-net')]);
    expect((await triggerOf('ev-3')).log).toMatchObject({ tx_hash: hash('b'), tx_url: null, block_url: null, contract_url: null });
  });
});
