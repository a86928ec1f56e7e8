import { Engine } from '../../../application/engine/engine';
import { CheckProviders } from '../../../application/relayers/check-providers.use-case';
import { ENGINE_SECRET_PATHS, requireSecrets } from '../../../application/secrets-needed';
import { ChainflowCommand } from '../base.command';

/** `chainflow worker`: the engine alone (no HTTP), until interrupted. */
export default class Worker extends ChainflowCommand {
  static override summary = 'Run the engine without the HTTP server (drives runs, cron ticks, receipt reads)';

  async run(): Promise<void> {
    const { flags } = await this.parse(Worker);
    const root = await this.root(flags.config, 'server');
    requireSecrets(root.config, ENGINE_SECRET_PATHS, 'chainflow worker');
    const engine = root.container.get(Engine);
    engine.start();
    // A provider serving another chain is logged now, before any send (CONTRACT 8.8).
    void root.container.get(CheckProviders).execute().catch(() => undefined);
    process.stderr.write(`chainflow worker ${engine.owner} running\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await engine.stop();
  }
}
