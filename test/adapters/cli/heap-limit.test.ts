import { constants, PerformanceObserver } from 'node:perf_hooks';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fullCollection, limitHeap } from '../../../src/adapters/cli/heap-limit';
import { REPO_ROOT, assertBuilt } from '../../support/cli';

const MB = 1024 * 1024;

/**
 * In a fresh node (the flag is process-wide): the size of V8's young generation after a burst of short-lived
 * allocations (in slices, so that timers run), with `limitHeap` running or not, and after a second burst once stopped.
 */
function youngGeneration(limited: boolean): { during: number; after: number } {
  const code = `
    const v8 = require('node:v8');
    const { limitHeap } = require(${JSON.stringify(join(REPO_ROOT, 'dist', 'src', 'adapters', 'cli', 'heap-limit.js'))});
    const size = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    const burst = async () => {
      let keep = [];
      for (let i = 0; i < 4e6; i++) {
        keep.push({ i, s: 'x' + i });
        if (keep.length > 20000) keep = [];
        if (i % 100000 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      }
    };
    (async () => {
      const stop = ${limited ? 'limitHeap(1 << 30)' : '() => undefined'};
      await burst();
      const during = size();
      stop();
      await burst();
      console.log(JSON.stringify({ during, after: size() }));
    })();`;
  const res = spawnSync(process.execPath, ['-e', code], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(res.stderr);
  return JSON.parse(res.stdout) as { during: number; after: number };
}

describe('fullCollection', () => {
  it("is V8's full collection, callable while node runs", async () => {
    const collect = fullCollection();
    expect(typeof collect).toBe('function');
    const seen = new Promise<void>((resolve) => {
      const observer = new PerformanceObserver((list) => {
        if (list.getEntries().some((e) => (e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)) {
          observer.disconnect();
          resolve();
        }
      });
      observer.observe({ entryTypes: ['gc'] });
    });
    collect!();
    await seen;
  });
});

describe('limitHeap', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('collects whenever the heap holds more than the limit, looking every 50 ms, until stopped', () => {
    const used = [10, 50, 39, 41, 90];
    const collect = jest.fn();
    const stop = limitHeap(40, { heapUsed: () => used.shift() ?? 0, collect, youngSize: () => 0, setFlags: () => undefined });
    jest.advanceTimersByTime(50);
    expect(collect).not.toHaveBeenCalled();
    jest.advanceTimersByTime(50);
    expect(collect).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(100);
    expect(collect).toHaveBeenCalledTimes(2);
    stop();
    jest.advanceTimersByTime(500);
    expect(collect).toHaveBeenCalledTimes(2);
    expect(used).toEqual([90]);
  });

  it('holds the young generation once it reaches 16 MB, looking every 5 ms until then, and gives V8 back its growth factor when stopped', () => {
    const flags: string[] = [];
    const young = [8 * MB, 8 * MB, 8 * MB, 16 * MB, 16 * MB];
    const stop = limitHeap(40, { heapUsed: () => 0, collect: jest.fn(), youngSize: () => young.shift() ?? 16 * MB, setFlags: (f) => void flags.push(f) });
    jest.advanceTimersByTime(10);
    expect(flags).toEqual([]);
    jest.advanceTimersByTime(5);
    expect(flags).toEqual(['--semi-space-growth-factor=1']);
    // Held: the young generation is not looked at again.
    jest.advanceTimersByTime(500);
    expect(young).toEqual([16 * MB]);
    stop();
    expect(flags).toEqual(['--semi-space-growth-factor=1', '--semi-space-growth-factor=2']);
  });

  it('leaves V8\'s growth factor alone when the young generation never reached 16 MB', () => {
    const flags: string[] = [];
    const stop = limitHeap(40, { heapUsed: () => 0, collect: jest.fn(), youngSize: () => 4 * MB, setFlags: (f) => void flags.push(f) });
    jest.advanceTimersByTime(500);
    stop();
    expect(flags).toEqual([]);
  });

  it('holds V8\'s young generation at 16 MB while it runs, and lets it grow again once stopped', () => {
    jest.useRealTimers();
    assertBuilt();
    const free = youngGeneration(false);
    const held = youngGeneration(true);
    expect(held.during).toBe(16 * MB);
    expect(free.during).toBeGreaterThan(held.during);
    expect(held.after).toBeGreaterThan(held.during);
  });
});
