import { inject, injectable } from 'inversify';
import { StorageHealth } from '../ports/storage-health';

export interface HealthReport {
  status: 'ok' | 'unavailable';
  checks: { database: 'ok' | 'unavailable' };
}

/** `GET /health`: whether the service can answer, i.e. whether its storage answers. */
@injectable()
export class CheckHealth {
  constructor(@inject(StorageHealth) private readonly storage: StorageHealth) {}

  async execute(): Promise<HealthReport> {
    try {
      await this.storage.ping();
      return { status: 'ok', checks: { database: 'ok' } };
    } catch {
      return { status: 'unavailable', checks: { database: 'unavailable' } };
    }
  }
}
