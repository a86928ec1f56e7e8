import { CheckHealth, HEALTH_PING_TIMEOUT_MS } from '../../src/application/health/check-health.use-case';
import type { StorageHealth } from '../../src/application/ports/storage-health';

function storage(ping: () => Promise<void>): StorageHealth {
  return { kind: () => 'postgres', ping, sizes: async () => ({}) };
}

describe('CheckHealth', () => {
  afterEach(() => jest.useRealTimers());

  it('reports the storage ok when its ping answers, unavailable when it fails', async () => {
    await expect(new CheckHealth(storage(async () => undefined)).execute())
      .resolves.toEqual({ status: 'ok', storage: 'postgres', checks: { database: 'ok' } });
    await expect(new CheckHealth(storage(() => Promise.reject(new Error('down')))).execute())
      .resolves.toEqual({ status: 'unavailable', storage: 'postgres', checks: { database: 'unavailable' } });
  });

  it('reports unavailable when the ping does not answer within HEALTH_PING_TIMEOUT_MS (a host that drops packets)', async () => {
    jest.useFakeTimers();
    let settled = false;
    const report = new CheckHealth(storage(() => new Promise<void>(() => undefined))).execute().finally(() => {
      settled = true;
    });
    await jest.advanceTimersByTimeAsync(HEALTH_PING_TIMEOUT_MS - 1);
    expect(settled).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    await expect(report).resolves.toEqual({ status: 'unavailable', storage: 'postgres', checks: { database: 'unavailable' } });
  });
});
