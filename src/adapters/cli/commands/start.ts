import { Flags } from '@oclif/core';
import { ChainflowCommand } from '../base.command';

/** `chainflow start [--port N]`: run the server until interrupted. */
export default class Start extends ChainflowCommand {
  static override summary = 'Run the server (API, embedded UI, webhooks, probes) and the engine';
  static override flags = {
    port: Flags.integer({ description: 'port to listen on (default from server.listen, 8080)', min: 1, max: 65535 }),
    engine: Flags.boolean({ description: 'run the engine in this process too (--no-engine: the API alone)', default: true, allowNo: true }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Start);
    // One JSON-lines stream on standard output: the engine's operator lines and the server's request lines.
    const { processLog, PinoLogger } = await import('../../pino-logger');
    const logger = processLog();
    const root = await this.root(flags.config, 'server', new PinoLogger(logger));
    const { startServer } = await import('../../../bin/server');
    const server = await startServer(root, { port: flags.port, logger, engine: flags.engine });
    const address = server.address();
    const where = typeof address === 'object' && address ? `http://${address.address}:${address.port}` : String(address);
    const storage = root.config.storage.url.replace(/\/\/[^@/]*@/, '//<redacted>@');
    logger.info({ url: where, storage, auth: root.config.server.authToken ? 'on' : 'off', engine: flags.engine ? 'on' : 'off' }, 'chainflow listening');
    await new Promise<void>((resolve) => {
      const stop = (): void => {
        server.close(() => resolve());
        server.closeAllConnections();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    // The engine's runs park or end before the storage closes (bounded by the engine's grace).
    if (flags.engine) {
      const { Engine } = await import('../../../application/engine/engine');
      await root.container.get(Engine).stop();
    }
  }
}
