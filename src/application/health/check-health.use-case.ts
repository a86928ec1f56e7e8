import { inject, injectable } from 'inversify';
import { StorageHealth, type StorageKind } from '../ports/storage-health';

export interface HealthReport {
  status: 'ok' | 'unavailable';
  /** The storage's technology, never its URL or credentials. */
  storage: StorageKind;
  checks: { database: 'ok' | 'unavailable' };
}

/**
 * How long `GET /health` waits for the storage. A PostgreSQL host that drops packets would otherwise hold the probe
 * for the pool's acquire timeout (60 s), far past what a load balancer waits (AWS ALB 5 s, Kubernetes 1 s default):
 * the answer must come within the probe's own timeout to mean anything.
 */
export const HEALTH_PING_TIMEOUT_MS = 2_000;

/** `GET /health`: whether the service can answer, i.e. whether its storage answers. */
@injectable()
export class CheckHealth {
  constructor(@inject(StorageHealth) private readonly storage: StorageHealth) {}

  async execute(): Promise<HealthReport> {
    const storage = this.storage.kind();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error('no answer in time')), HEALTH_PING_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.storage.ping(), late]);
      return { status: 'ok', storage, checks: { database: 'ok' } };
    } catch {
      return { status: 'unavailable', storage, checks: { database: 'unavailable' } };
    } finally {
      clearTimeout(timer);
    }
  }
}
