import { GroupCommits, type Waiting } from '../../../src/adapters/knex/journal-groups';
import type { JournalEvent } from '../../../src/domain/journal/journal-event';

const started = (runId: string): JournalEvent => ({
  type: 'run.started', at: '2027-01-15T08:00:00.000Z', run_id: runId, workflow: 'wf', session: 'live', trigger: { kind: 'manual', summary: 'test' },
});

/** Group commits whose writes finish when the test says: each commit is recorded with the runs it holds. */
function harness(writers: number, whileBusy: number): { groups: string[][]; finish(n: number): Promise<void>; push(runId: string): void } {
  const groups: string[][] = [];
  const pending: (() => void)[] = [];
  const commits = new GroupCommits(writers, async (group) => {
    groups.push(group.map((w) => (w.events[0] as { run_id: string }).run_id));
    await new Promise<void>((resolve) => pending.push(resolve));
    for (const w of group) w.resolve({ applied: w.events.length, duplicates: 0 });
  }, whileBusy);
  return {
    groups,
    push: (runId) => commits.push({ events: [started(runId)], options: {}, resolve: () => undefined, reject: () => undefined } satisfies Waiting),
    finish: async (n) => {
      pending.splice(n, 1)[0]!();
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe('GroupCommits', () => {
  it('starts a group at once when none is in flight; beside one in flight, only once enough appends wait', async () => {
    const h = harness(4, 3);
    h.push('r1');
    expect(h.groups).toEqual([['r1']]);
    h.push('r2');
    h.push('r3');
    // A writer is free, but one group is in flight and two appends wait: they wait for a third.
    expect(h.groups).toEqual([['r1']]);
    h.push('r4');
    expect(h.groups).toEqual([['r1'], ['r2', 'r3', 'r4']]);
    h.push('r5');
    expect(h.groups).toHaveLength(2);
    // The groups in flight end: what waits goes at once, however little.
    await h.finish(0);
    expect(h.groups).toHaveLength(2);
    await h.finish(0);
    expect(h.groups).toEqual([['r1'], ['r2', 'r3', 'r4'], ['r5']]);
  });

  it('with one writer, each group takes every append that waited for it', async () => {
    const h = harness(1, 3);
    h.push('r1');
    h.push('r2');
    expect(h.groups).toEqual([['r1']]);
    await h.finish(0);
    expect(h.groups).toEqual([['r1'], ['r2']]);
  });
});
