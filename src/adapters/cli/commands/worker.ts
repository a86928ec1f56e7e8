import { Engine } from '../../../application/engine/engine';
import { CheckProviders } from '../../../application/relayers/check-providers.use-case';
import { ENGINE_SECRET_PATHS, requireSecrets } from '../../../application/secrets-needed';
import { ChainflowCommand } from '../base.command';

/** `chainflow worker`: the engine alone (no HTTP), until interrupted. */
export default class Worker extends ChainflowCommand {
  static override summary = 'Run the engine without the HTTP server (drives runs, cron ticks, receipt reads)';

  async run(): Promise<void> {
    const { flags } = await this.parse(Worker);
    // One JSON-lines stream on standard output, as `chainflow start` writes (docs/decisions.md).
    const { processLog, PinoLogger } = await import('../../pino-logger');
    const log = processLog();
    const root = await this.root(flags.config, 'server', new PinoLogger(log));
    requireSecrets(root.config, ENGINE_SECRET_PATHS, 'chainflow worker');
    const engine = root.container.get(Engine);
    engine.start();
    // A provider serving another chain is logged now, before any send (CONTRACT 8.8).
    void root.container.get(CheckProviders).execute().catch(() => undefined);
    log.info({ owner: engine.owner }, 'chainflow worker running');
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await engine.stop();
  }
}
