import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How often the heap is looked at: far more often than a page of an export takes to fill it. */
const CHECK_MS = 50;

/** V8's full collection (`gc`), made callable while node runs; undefined where V8 does not give it. */
export function fullCollection(): (() => void) | undefined {
  setFlagsFromString('--expose-gc');
  // The flag applies to contexts made after it: a new one carries the `gc` function.
  const gc = runInNewContext('gc') as unknown;
  return typeof gc === 'function' ? (gc as () => void) : undefined;
}

export interface HeapLimitOptions {
  /** Bytes of the heap in use (default V8's figure). */
  readonly heapUsed?: () => number;
  /** Collects the heap whole (default V8's full collection). */
  readonly collect?: () => void;
}

/**
 * Keeps the JavaScript heap of a long streaming command (an export) near what it holds alive. Such a command keeps
 * little alive (a page or two), but V8 lets promoted garbage grow the old generation to several times that before it
 * collects, and the process never gives those pages back: at 1M runs the old generation of an export reached 95 MB
 * with 20 MB alive. V8's own limits (`--max-old-space-size`) can only be set when node starts, and `bin/run.js` is
 * started by the user's shell, so the heap is collected here, whole, whenever it holds more than `bytes` (a full
 * collection of such a heap takes a few milliseconds). Returns the function that stops it.
 */
export function limitHeap(bytes: number, options: HeapLimitOptions = {}): () => void {
  const collect = options.collect ?? fullCollection();
  if (!collect) return () => undefined;
  const heapUsed = options.heapUsed ?? (() => getHeapStatistics().used_heap_size);
  const timer = setInterval(() => {
    if (heapUsed() > bytes) collect();
  }, CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
