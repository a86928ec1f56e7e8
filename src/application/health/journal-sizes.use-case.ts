import { inject, injectable } from 'inversify';
import { StorageHealth } from '../ports/storage-health';

/** Row counts for `/metrics`: how big the journal is. */
@injectable()
export class JournalSizes {
  constructor(@inject(StorageHealth) private readonly storage: StorageHealth) {}

  execute(): Promise<Record<string, number>> {
    return this.storage.sizes();
  }
}
