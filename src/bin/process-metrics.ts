import type { Server } from 'node:http';
import type { Container } from 'inversify';
import { Registry } from 'prom-client';
import { listenForMetrics } from '../adapters/http/metrics-listener';
import { registerOperationsMetrics, registerProcessMetrics } from '../adapters/http/operations-metrics';
import { registerProviderMetrics } from '../adapters/http/provider-metrics';
import { registerRelayerMetrics } from '../adapters/http/relayer-metrics';
import { PromEngineMetrics } from '../adapters/metrics/prom-engine-metrics';
import { PromSendMetrics } from '../adapters/metrics/prom-send-metrics';
import { Authenticate } from '../application/auth/authenticate.use-case';
import { Logger } from '../application/ports/logger';
import { OperationsGauges } from '../application/ports/operations-gauges';
import { CheckProviders } from '../application/relayers/check-providers.use-case';
import { RelayerGauges } from '../application/relayers/relayer-gauges.use-case';
import { InvalidInputError } from '../domain/errors';
import { Redactor } from '../domain/redactor';
import type { Root } from './root';
import { packageVersion } from './version';

/**
 * The series every chainflow process that runs the engine exports (CONTRACT 11), into `registry`: prom-client's
 * process metrics and `chainflow_build_info`, the depths read from storage, the relayers' and providers' gauges.
 * Returns the registries of this process's own counters (engine, sends) to export beside it.
 */
export function registerEngineProcessMetrics(registry: Registry, container: Container): Registry[] {
  registerProcessMetrics(registry, packageVersion());
  registerOperationsMetrics(registry, container.get<OperationsGauges>(OperationsGauges));
  const relayerGauges = container.get(RelayerGauges);
  registerRelayerMetrics(registry, () => relayerGauges.execute());
  const providers = container.get(CheckProviders);
  registerProviderMetrics(registry, () => providers.execute());
  return [container.get(PromSendMetrics).registry, container.get(PromEngineMetrics).registry];
}

/** The worker's page (`chainflow worker --metrics-port`): what registerEngineProcessMetrics lists, without HTTP series. */
export function workerMetricsRegistry(container: Container): Registry {
  const own = new Registry();
  const counters = registerEngineProcessMetrics(own, container);
  return Registry.merge([own, ...counters]);
}

/**
 * `chainflow worker --metrics-port P`: its page on `host:port` (127.0.0.1 unless given), under the same bearer as
 * the server's `/metrics` unless `server.metrics_public`.
 */
export function serveWorkerMetrics(root: Root, options: { port: number; host?: string; logger: Logger }): Promise<Server> {
  const { container, config } = root;
  const redactor = container.get(Redactor);
  const host = options.host ?? '127.0.0.1';
  return listenForMetrics({
    registry: workerMetricsRegistry(container),
    port: options.port,
    host,
    ...(config.server.metricsPublic ? {} : { auth: container.get(Authenticate) }),
    onError: (err) => options.logger.error('metrics scrape failed', { err: redactor.redactText(err instanceof Error ? err.message : String(err)) }),
  }).catch((err: NodeJS.ErrnoException) => {
    // A taken or forbidden port is the operator's to fix: said in one line, naming the flag.
    if (err.code === 'EADDRINUSE' || err.code === 'EACCES' || err.code === 'EADDRNOTAVAIL') {
      throw new InvalidInputError('--metrics-port', `cannot listen on ${host}:${options.port} (${err.code})`);
    }
    throw err;
  });
}
