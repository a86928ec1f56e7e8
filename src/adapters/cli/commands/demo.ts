import { WriteDemoJournal } from '../../../application/journal/demo-journal.use-case';
import { ChainflowCommand } from '../base.command';

/** `chainflow demo`: fill the journal with a realistic sample, once. */
export default class Demo extends ChainflowCommand {
  static override summary = 'Write a realistic sample journal (once), so a fresh install has something to show';

  async run(): Promise<void> {
    const { flags } = await this.parse(Demo);
    const root = await this.root(flags.config);
    const report = await root.container.get(WriteDemoJournal).execute();
    this.log(report.written
      ? `demo journal written: ${report.runs} runs, ${report.events} events`
      : 'demo journal already present; nothing written');
  }
}
