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

/**
 * The polling window the readers' polling tests give: longer than a server's POLL_ALONE_MS, so that a test process
 * held off a core for a millisecond (CI's suites run side by side) still sees turns before its deadline. Their slow
 * reads last several windows: a loop that stopped at its deadline stops well before the answer, however late a turn.
 */
export const POLL_WINDOW_MS = 10;
