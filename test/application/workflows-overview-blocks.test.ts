/**
 * The workflows overview's cursor / head / lag for event triggers (CONTRACT 8.6, issue #28 part 5): the blocks the
 * engine's log poller journals in `workflow.state` (trigger, network, cursor_block, head_block: no pause state) show
 * in the history overview and in `GET /api/workflows` / `chainflow workflows`; other triggers show none.
 */
import { CronerCalendar } from '../../src/adapters/cron/croner-calendar';
import type { ChainflowConfig, WorkflowConfig } from '../../src/application/config';
import { ListConfiguredWorkflows } from '../../src/application/engine/workflow-controls.use-case';
import { ListWorkflows } from '../../src/application/history/list-workflows.use-case';
import { WorkflowCatalog } from '../../src/application/workflow-catalog';
import { CursorCodec } from '../../src/domain/cursor';
import type { TriggerDefinition, WorkflowDefinition } from '../../src/domain/engine/workflow';
import { Redactor } from '../../src/domain/redactor';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryEngineStore } from '../fakes/in-memory-engine-store';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { aWorkflowState, T0 } from '../mothers/journal-events';
import { anHttpCall, aWorkflow } from '../mothers/workflows';

const EVENT: TriggerDefinition = {
  kind: 'event', network: 'devnet', addresses: ['0x5fbdb2315678afecb367f032d93f642f64180aa3'],
  event: 'Transfer(address indexed from, address indexed to, uint256 value)', confirmations: 1, fromBlock: 0,
};

function configOf(...workflows: WorkflowDefinition[]): ChainflowConfig {
  const entries: [string, WorkflowConfig][] = workflows.map((w) => [w.name, { name: w.name, budgets: [], definition: { trigger: { kind: w.trigger.kind } }, engine: w }]);
  return {
    server: { host: '127.0.0.1', port: 8080, healthPublic: true, metricsPublic: false }, storage: { url: 'sqlite::memory:' },
    networks: new Map(), relayers: new Map(), budgets: new Map(), workflows: new Map(entries), secretValues: [],
  } as ChainflowConfig;
}

describe('event workflows: cursor / head / lag on the overview and the configured workflows', () => {
  const config = configOf(
    aWorkflow({ name: 'deposits', trigger: EVENT, steps: [anHttpCall('a')] }),
    aWorkflow({ name: 'sweep', steps: [anHttpCall('a')] }),
  );
  const clock = new FixedClock(T0);
  let journal: InMemoryJournal;
  const configured = (): ListConfiguredWorkflows =>
    new ListConfiguredWorkflows(new WorkflowCatalog(config), journal, new InMemoryEngineStore(), new CronerCalendar(), clock);
  const overview = (): ListWorkflows => new ListWorkflows(journal, config, new CursorCodec('k'.repeat(32)), new Redactor([]), clock);

  beforeEach(() => {
    journal = new InMemoryJournal();
  });

  it('shows nothing before the engine said anything, and no blocks for other triggers', async () => {
    const items = (await configured().execute()).items;
    expect(items.map((w) => [w.workflow, w.network, w.cursor_block, w.head_block, w.lag_blocks])).toEqual([
      ['deposits', 'devnet', null, null, null],
      ['sweep', null, null, null, null],
    ]);
  });

  it('follows each poll the engine journals: the head first, then the cursor catching up', async () => {
    // What the poller writes: the head on its first poll (nothing read yet), then the last block read with the head.
    await journal.append([aWorkflowState({ workflow: 'deposits', at: T0, trigger: 'event', network: 'devnet', headBlock: 120 })]);
    let row = (await configured().execute()).items[0]!;
    expect([row.cursor_block, row.head_block, row.lag_blocks]).toEqual([null, 120, null]);

    await journal.append([aWorkflowState({ workflow: 'deposits', at: T0 + 2000, trigger: 'event', network: 'devnet', cursorBlock: 100, headBlock: 121 })]);
    row = (await configured().execute()).items[0]!;
    expect([row.cursor_block, row.head_block, row.lag_blocks]).toEqual([100, 121, 21]);
    let history = (await overview().execute({})).items.find((w) => w.workflow === 'deposits')!;
    expect([history.trigger, history.cursor_block, history.head_block, history.lag_blocks]).toEqual(['event', 100, 121, 21]);

    await journal.append([aWorkflowState({ workflow: 'deposits', at: T0 + 4000, trigger: 'event', network: 'devnet', cursorBlock: 122, headBlock: 122 })]);
    row = (await configured().execute()).items[0]!;
    expect([row.cursor_block, row.head_block, row.lag_blocks]).toEqual([122, 122, 0]);
    history = (await overview().execute({})).items.find((w) => w.workflow === 'deposits')!;
    expect(history.lag_blocks).toBe(0);
  });

  it('a pause keeps the blocks, and the blocks keep the pause', async () => {
    await journal.append([
      aWorkflowState({ workflow: 'deposits', at: T0, trigger: 'event', network: 'devnet', cursorBlock: 7, headBlock: 9 }),
      aWorkflowState({ workflow: 'deposits', at: T0 + 1000, paused: true, trigger: 'event' }),
      aWorkflowState({ workflow: 'deposits', at: T0 + 2000, trigger: 'event', network: 'devnet', cursorBlock: 9, headBlock: 12 }),
    ]);
    const row = (await configured().execute()).items[0]!;
    expect([row.paused, row.cursor_block, row.head_block, row.lag_blocks]).toEqual([true, 9, 12, 3]);
  });
});
