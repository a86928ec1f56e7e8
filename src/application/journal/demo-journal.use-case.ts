import { inject, injectable } from 'inversify';
import { Clock } from '../ports/clock';
import { JournalWriter } from '../ports/journal-writer';
import { RunRepository } from '../ports/run-repository';
import { sampleJournal } from './sample-journal';

export interface DemoReport {
  /** False when the sample was already there (the demo writes it once per journal). */
  readonly written: boolean;
  readonly events: number;
  readonly runs: number;
}

/** `chainflow demo`: writes a realistic sample journal through the journal port, once. */
@injectable()
export class WriteDemoJournal {
  constructor(
    @inject(JournalWriter) private readonly journal: JournalWriter,
    @inject(RunRepository) private readonly runs: RunRepository,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(): Promise<DemoReport> {
    const events = sampleJournal(this.clock.now());
    const runCount = events.filter((e) => e.type === 'run.started').length;
    if (await this.runs.get('demo-0001')) return { written: false, events: 0, runs: runCount };
    const result = await this.journal.append(events);
    return { written: true, events: result.applied, runs: runCount };
  }
}
