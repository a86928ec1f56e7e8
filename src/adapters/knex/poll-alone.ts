import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers';

/** How long a server's event loop keeps polling, at most, for a list read that runs alone (see pollWhileAlone). */
export const POLL_ALONE_MS = 1;

/**
 * Keeps the event loop turning (setImmediate) until `read` settles, `alone()` turns false, or `ms` have passed,
 * instead of letting it sleep until the read's answer wakes it. Waking a sleeping event loop costs tens of µs on
 * this machine's virtual CPUs, as much as a list page's statement (SQLite's trip through the driver's thread pool,
 * PostgreSQL's through the socket; docs/benchmarks.md), and a loop that polls picks the answer up at once. Only for
 * a read that runs alone on a server: reads side by side give the loop other work to turn for, and the threads or
 * the database's processes need the CPUs; a command's long reads never poll.
 */
export function pollWhileAlone(read: Promise<unknown>, alone: () => boolean, ms: number): void {
  let settled = false;
  const done = (): void => {
    settled = true;
  };
  read.then(done, done);
  const deadline = performance.now() + ms;
  const turn = (): void => {
    if (!settled && alone() && performance.now() < deadline) setImmediate(turn);
  };
  setImmediate(turn);
}
