import { Flags } from '@oclif/core';
import { Engine } from '../../../application/engine/engine';
import { CheckProviders } from '../../../application/relayers/check-providers.use-case';
import { ENGINE_SECRET_PATHS, requireSecrets } from '../../../application/secrets-needed';
import { ChainflowCommand } from '../base.command';

/** `chainflow worker [--metrics-port P]`: the engine alone (no API), until interrupted; its metrics on request. */
export default class Worker extends ChainflowCommand {
  static override summary = 'Run the engine without the HTTP server (drives runs, cron ticks, receipt reads)';
  static override flags = {
    'metrics-port': Flags.integer({ description: 'serve GET /metrics (Prometheus) on this port, and nothing else', min: 1, max: 65535 }),
    // No oclif default: a default would count as given, and `dependsOn` would then ask every worker for a port.
    'metrics-host': Flags.string({ description: 'address the metrics port listens on (default 127.0.0.1)', dependsOn: ['metrics-port'] }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Worker);
    // One JSON-lines stream on standard output, as `chainflow start` writes (docs/decisions.md).
    const { processLog, PinoLogger } = await import('../../pino-logger');
    const log = processLog();
    const logger = new PinoLogger(log);
    const root = await this.root(flags.config, 'server', logger);
    const metricsPort = flags['metrics-port'];
    // Its metrics page is under the server's bearer: an unset token variable must not leave it open.
    requireSecrets(root.config, [...ENGINE_SECRET_PATHS, ...(metricsPort !== undefined ? ['server.auth'] : [])], 'chainflow worker');
    const engine = root.container.get(Engine);
    const metrics = metricsPort === undefined ? undefined : await (await import('../../../bin/process-metrics'))
      .serveWorkerMetrics(root, { port: metricsPort, host: flags['metrics-host'] ?? '127.0.0.1', logger });
    engine.start();
    // A provider serving another chain is logged now, before any send (CONTRACT 8.8).
    void root.container.get(CheckProviders).execute().catch(() => undefined);
    const address = metrics?.address();
    const metricsUrl = typeof address === 'object' && address ? `http://${address.address}:${address.port}/metrics` : undefined;
    log.info({ owner: engine.owner, ...(metricsUrl ? { metrics: metricsUrl } : {}) }, 'chainflow worker running');
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    metrics?.close();
    await engine.stop();
  }
}
