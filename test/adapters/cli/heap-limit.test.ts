import { constants, PerformanceObserver } from 'node:perf_hooks';
import { fullCollection, limitHeap } from '../../../src/adapters/cli/heap-limit';

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
    const stop = limitHeap(40, { heapUsed: () => used.shift() ?? 0, collect });
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
});
