import { inject, injectable } from 'inversify';
import { InvalidInputError, NotFoundError } from '../../domain/errors';
import { ExplorerLinks } from '../../domain/explorer';
import { isValidId } from '../../domain/ids';
import { Redactor } from '../../domain/redactor';
import { RunRepository } from '../ports/run-repository';
import { buildTimeline, type Timeline } from './timeline';

/** One run chronologically: `{ run, events }`, redacted. */
@injectable()
export class GetRunTimeline {
  constructor(
    @inject(RunRepository) private readonly runs: RunRepository,
    @inject(ExplorerLinks) private readonly explorer: ExplorerLinks,
    @inject(Redactor) private readonly redactor: Redactor,
  ) {}

  /** `field`: the parameter that named the run, for the error message (default `run_id`). */
  async execute(runId: string, field = 'run_id'): Promise<Timeline> {
    if (!isValidId(runId)) throw new InvalidInputError(field, 'malformed run id');
    const run = await this.runs.get(runId);
    if (!run) throw new NotFoundError('run', field);
    const stream = await this.runs.stream(runId);
    return this.redactor.redact(buildTimeline(run, stream, this.explorer));
  }
}
