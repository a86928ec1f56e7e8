import { inject, injectable } from 'inversify';
import { InvalidInputError } from '../../domain/errors';
import { GetRunTimeline } from './get-run-timeline.use-case';
import { diffRuns, type RunDiff } from './run-diff';

/** `chainflow runs diff <a> <b>` and `GET /api/history/diff?a=&b=`: what differs between two runs, redacted. */
@injectable()
export class DiffRuns {
  constructor(@inject(GetRunTimeline) private readonly timelines: GetRunTimeline) {}

  /** The API's form: `{ a, b }` query parameters, both required, nothing else. */
  async fromQuery(query: Readonly<Record<string, unknown>>): Promise<RunDiff> {
    for (const name of Object.keys(query)) {
      if (name !== 'a' && name !== 'b') throw new InvalidInputError(name, `unknown parameter '${name}' (known: a, b)`);
    }
    for (const name of ['a', 'b'] as const) {
      if (typeof query[name] !== 'string') throw new InvalidInputError(name, query[name] === undefined ? 'required (a run id)' : 'must be given once');
    }
    return this.execute(query.a as string, query.b as string);
  }

  async execute(a: string, b: string): Promise<RunDiff> {
    // Each timeline is already redacted: the comparison never sees a secret.
    const [ta, tb] = await Promise.all([this.timelines.execute(a, 'a'), this.timelines.execute(b, 'b')]);
    return diffRuns(ta, tb);
  }
}
