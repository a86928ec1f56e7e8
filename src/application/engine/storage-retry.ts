import { StorageError } from '../../domain/errors';

/** The first wait before a storage operation is tried again (ms); doubled each time up to STORAGE_MAX_BACKOFF_MS. */
export const STORAGE_FIRST_BACKOFF_MS = 50;
/** The longest wait between two tries: a database back after an outage is used within this. */
export const STORAGE_MAX_BACKOFF_MS = 5_000;

/** A locked or unreachable database, as the storage adapter classified it: worth trying the same thing again. */
export function isTransientStorageError(err: unknown): err is StorageError {
  return err instanceof StorageError && err.transient;
}

/**
 * Runs `work` until it does not fail with a transient storage error, waiting with backoff between tries
 * (CONTRACT 8.7: storage errors are retried, never taken for an engine crash). A run's driver keeps its place
 * meanwhile instead of giving the run up to an expired lease, which the next claim would count as a crash. `work`
 * must be safe to repeat: a journal append is (a repeated event is a duplicate, and the fence refuses a write
 * whose lease was taken over meanwhile). Stops trying, with the last error, once `giveUp()` says so.
 */
export async function retryStorage<T>(work: () => Promise<T>, giveUp: () => boolean = () => false): Promise<T> {
  for (let wait = STORAGE_FIRST_BACKOFF_MS; ; wait = Math.min(wait * 2, STORAGE_MAX_BACKOFF_MS)) {
    try {
      return await work();
    } catch (err) {
      if (!isTransientStorageError(err) || giveUp()) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
