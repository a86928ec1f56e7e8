/**
 * The pause state the engine reads (`WorkflowStates.paused`) on the fake and on both stores: undefined until a
 * `workflow.state` says `paused`, so the config's `paused: true` holds while the log poller only reports blocks.
 */
import type { Knex } from 'knex';
import { KnexJournalWriter } from '../../../src/adapters/knex/knex-journal.writer';
import { KnexWorkflowStates } from '../../../src/adapters/knex/knex-workflow-states';
import type { JournalEvent } from '../../../src/domain/journal/journal-event';
import { InMemoryJournal } from '../../fakes/in-memory-journal';
import { T0 } from '../../mothers/journal-events';
import { KNEX_STORES } from '../../support/stores';

interface States {
  append(events: JournalEvent[]): Promise<unknown>;
  paused(workflow: string): Promise<boolean | undefined>;
  close(): Promise<void>;
}

const at = (s: number): string => new Date(T0 + s * 1000).toISOString();

const SUBJECTS: ReadonlyArray<readonly [string, () => Promise<States>]> = [
  ['the in-memory fake', async () => {
    const journal = new InMemoryJournal();
    return { append: (e) => journal.append(e), paused: (w) => journal.paused(w), close: async () => undefined };
  }],
  ...KNEX_STORES.map(([name, fresh]) => [`knex on ${name}`, async (): Promise<States> => {
    const store = await fresh();
    const db: Knex = await store.open();
    const journal = new KnexJournalWriter(db);
    const states = new KnexWorkflowStates(db);
    return { append: (e) => journal.append(e), paused: (w) => states.paused(w), close: () => store.close() };
  }] as const),
];

describe.each(SUBJECTS)('workflow pause state on %s', (_name, make) => {
  let s: States;
  beforeEach(async () => { s = await make(); });
  afterEach(() => s.close());

  it('is unknown until the journal says paused, however many block reports come first', async () => {
    expect(await s.paused('deposits')).toBeUndefined();
    await s.append([{ type: 'workflow.state', at: at(1), workflow: 'deposits', trigger: 'event', network: 'anvil', cursor_block: 10, head_block: 12 }]);
    expect(await s.paused('deposits')).toBeUndefined();
    await s.append([{ type: 'workflow.state', at: at(2), workflow: 'deposits', paused: true }]);
    await s.append([{ type: 'workflow.state', at: at(3), workflow: 'deposits', cursor_block: 13, head_block: 14 }]);
    expect(await s.paused('deposits')).toBe(true);
    await s.append([{ type: 'workflow.state', at: at(4), workflow: 'deposits', paused: false }]);
    expect(await s.paused('deposits')).toBe(false);
  });
});
