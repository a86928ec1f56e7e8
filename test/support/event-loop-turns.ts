import { performance } from 'node:perf_hooks';
import timers from 'node:timers';

/** The times `setImmediate` (node:timers, as the list readers' polling calls it) is called from now on (jest.restoreAllMocks ends it). */
export function countImmediateTurns(): number[] {
  const real = timers.setImmediate;
  const turns: number[] = [];
  jest.spyOn(timers, 'setImmediate').mockImplementation(((fn: () => void) => {
    turns.push(performance.now());
    return real(fn);
  }) as typeof timers.setImmediate);
  return turns;
}
