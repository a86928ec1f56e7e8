import { DiffRuns } from '../../src/application/history/diff-runs.use-case';
import { GetRunTimeline } from '../../src/application/history/get-run-timeline.use-case';
import { diffValues } from '../../src/application/history/run-diff';
import { InvalidInputError, NotFoundError } from '../../src/domain/errors';
import { ExplorerLinks } from '../../src/domain/explorer';
import { Redactor } from '../../src/domain/redactor';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { aRun, aTxHash, MINUTE, T0 } from '../mothers/journal-events';

describe('DiffRuns', () => {
  let journal: InMemoryJournal;
  let diff: DiffRuns;

  beforeEach(async () => {
    journal = new InMemoryJournal();
    diff = new DiffRuns(new GetRunTimeline(journal, new ExplorerLinks(), new Redactor(['topsecret-1', 'topsecret-2'])));
    await journal.append([
      ...aRun({ runId: 'a', at: T0, trigger: { kind: 'cron', payload: { price: '1800', key: 'topsecret-1' } },
        steps: [{ stepId: 'fetch', output: { price: '1800' } }, { stepId: 'only_a' }], send: { relayer: 'ops', txHash: aTxHash('a') } }),
      ...aRun({ runId: 'b', at: T0 + MINUTE, trigger: { kind: 'cron', payload: { price: '1900', key: 'topsecret-2' } },
        steps: [{ stepId: 'fetch', output: { price: '1900' }, failedAttempts: 1, retryError: { kind: 'http_error' } }, { stepId: 'only_b' }],
        send: { relayer: 'treasury', txHash: aTxHash('b') } }),
    ]);
  });

  it('aligns steps by step id and lists field-level changes, redacted', async () => {
    const d = await diff.execute('a', 'b');
    expect(d.a.run_id).toBe('a');
    expect(d.trigger).toEqual(expect.arrayContaining([{ path: 'trigger.payload.price', a: '1800', b: '1900' }]));
    expect(JSON.stringify(d)).not.toMatch(/topsecret/);
    expect(d.trigger.find((c) => c.path === 'trigger.payload.key')).toBeUndefined();
    const fetch = d.steps.find((s) => s.step_id === 'fetch')!;
    expect(fetch.a).toMatchObject({ attempts: 1, status: 'succeeded' });
    expect(fetch.b).toMatchObject({ attempts: 2, status: 'succeeded' });
    expect(fetch.changes).toEqual(expect.arrayContaining([{ path: 'output.price', a: '1800', b: '1900' }, { path: 'attempts', a: 1, b: 2 }]));
    expect(d.steps.find((s) => s.step_id === 'only_a')).toMatchObject({ b: null });
    expect(d.steps.find((s) => s.step_id === 'only_b')).toMatchObject({ a: null });
    expect(d.sends).toEqual(expect.arrayContaining([{ path: '[0].relayer', a: 'ops', b: 'treasury' }]));
  });

  it('refuses malformed ids naming the parameter, and reports an unknown run', async () => {
    await expect(diff.fromQuery({ a: 'a' })).rejects.toMatchObject({ field: 'b' });
    await expect(diff.fromQuery({ a: 'a', b: 'bad id' })).rejects.toMatchObject({ field: 'b' });
    await expect(diff.fromQuery({ a: 'a', b: 'b', c: 'x' })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(diff.execute('a', 'missing')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('diffValues', () => {
  it('reports nested paths, array positions and absent fields', () => {
    expect(diffValues({ x: { y: 1, z: [1, 2] } }, { x: { y: 2, z: [1] }, w: true })).toEqual([
      { path: 'w', a: undefined, b: true },
      { path: 'x.y', a: 1, b: 2 },
      { path: 'x.z[1]', a: 2, b: undefined },
    ]);
    expect(diffValues({ same: [1, { a: 'b' }] }, { same: [1, { a: 'b' }] })).toEqual([]);
  });
});
