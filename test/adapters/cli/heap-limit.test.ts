import { constants, PerformanceObserver } from 'node:perf_hooks';
import { limitHeap } from '../../../src/adapters/cli/heap-limit';

/** Full (mark-compact) collections seen while `during` runs. */
async function majorCollections(during: () => Promise<void>): Promise<number> {
  let count = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) count++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  try {
    await during();
    // GC entries are delivered asynchronously.
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    observer.disconnect();
  }
  return count;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('limitHeap', () => {
  // V8 may collect on its own now and then (its memory reducer, say): a few collections in any second.
  it('collects the heap whole, about every 50 ms, while it holds more than the limit; stops when told', async () => {
    let stop = (): void => undefined;
    const limited = await majorCollections(async () => {
      stop = limitHeap(1);
      await pause(1000);
      stop();
    });
    expect(limited).toBeGreaterThanOrEqual(5);
    expect(await majorCollections(() => pause(1000))).toBeLessThanOrEqual(3);
  });

  it('leaves a heap below the limit alone', async () => {
    let stop = (): void => undefined;
    const count = await majorCollections(async () => {
      stop = limitHeap(Number.MAX_SAFE_INTEGER);
      await pause(1000);
      stop();
    });
    expect(count).toBeLessThanOrEqual(3);
  });
});
