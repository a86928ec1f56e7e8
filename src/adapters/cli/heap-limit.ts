import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How often the heap is looked at: far more often than a page of an export takes to fill it. */
const CHECK_MS = 50;
/**
 * How often the young generation is looked at until it is held: V8 grew it from 16 to 32 MB within 25 ms of
 * reaching 16 MB in a burst of allocations, between two looks 50 ms apart (a test caught it about one run in three).
 */
const YOUNG_CHECK_MS = 5;

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
  /** Bytes of V8's young generation (default its `new_space` figure). */
  readonly youngSize?: () => number;
  /** Sets V8 flags while node runs (default `v8.setFlagsFromString`). */
  readonly setFlags?: (flags: string) => void;
}

/** V8's own growth factor of the young generation (its default, which `limitHeap` puts back when it stops). */
const DEFAULT_SEMI_SPACE_GROWTH = 2;
/** The young generation is held once it is this large (half of what V8 grows it to). */
const HELD_YOUNG_BYTES = 16 * 1024 * 1024;

const newSpaceSize = (): number => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;

/**
 * Keeps the JavaScript heap of a long streaming command (an export) near what it holds alive. Such a command keeps
 * little alive (a page or two), but V8 lets promoted garbage grow the old generation to several times that before it
 * collects, and the process never gives those pages back: at 1M runs the old generation of an export reached 95 MB
 * with 20 MB alive. V8's own limits (`--max-old-space-size`) can only be set when node starts, and `bin/run.js` is
 * started by the user's shell, so the heap is collected here, whole, whenever it holds more than `bytes` (a full
 * collection of such a heap takes a few milliseconds).
 *
 * The young generation is held too, once it reaches 16 MB: V8 doubles it up to 32 MB while a command allocates fast,
 * and its growth factor is the one V8 flag about it that still takes effect once node runs. Held there, a JSON
 * export of 1M runs peaked at 142 – 146 MB instead of 156 – 158 MB, for the same CPU; held at the 2 MB node starts
 * with, it took 40% more CPU (see docs/benchmarks.md). Returns the function that stops both, giving V8 its growth
 * factor back.
 */
export function limitHeap(bytes: number, options: HeapLimitOptions = {}): () => void {
  const collect = options.collect ?? fullCollection();
  if (!collect) return () => undefined;
  const heapUsed = options.heapUsed ?? (() => getHeapStatistics().used_heap_size);
  const youngSize = options.youngSize ?? newSpaceSize;
  const setFlags = options.setFlags ?? setFlagsFromString;
  let held = false;
  let young: ReturnType<typeof setInterval> | undefined;
  const hold = (): void => {
    if (held || youngSize() < HELD_YOUNG_BYTES) return;
    setFlags('--semi-space-growth-factor=1');
    held = true;
    if (young) clearInterval(young);
  };
  hold();
  if (!held) {
    young = setInterval(hold, YOUNG_CHECK_MS);
    young.unref();
  }
  const timer = setInterval(() => {
    if (heapUsed() > bytes) collect();
  }, CHECK_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    if (young) clearInterval(young);
    if (held) setFlags(`--semi-space-growth-factor=${DEFAULT_SEMI_SPACE_GROWTH}`);
  };
}
