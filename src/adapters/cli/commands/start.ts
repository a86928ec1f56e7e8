import { Flags } from '@oclif/core';
import { ChainflowCommand } from '../base.command';

/** `chainflow start [--port N]`: run the server until interrupted. */
export default class Start extends ChainflowCommand {
  static override summary = 'Run the server (history API, embedded UI, probes)';
  static override flags = {
    port: Flags.integer({ description: 'port to listen on (default from server.listen, 8080)', min: 1, max: 65535 }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Start);
    const root = await this.root(flags.config, 'server');
    const { startServer, createLogger } = await import('../../../bin/server');
    const logger = createLogger();
    const server = await startServer(root, { port: flags.port, logger });
    const address = server.address();
    const where = typeof address === 'object' && address ? `http://${address.address}:${address.port}` : String(address);
    const storage = root.config.storage.url.replace(/\/\/[^@/]*@/, '//<redacted>@');
    logger.info({ url: where, storage, auth: root.config.server.authToken ? 'on' : 'off' }, 'chainflow listening');
    await new Promise<void>((resolve) => {
      const stop = (): void => {
        server.close(() => resolve());
        server.closeAllConnections();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  }
}
