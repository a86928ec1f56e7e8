import { inject, injectable } from 'inversify';
import { QueryParser, type ParamSpecs } from '../query/query-params';
import { GetRunTimeline } from './get-run-timeline.use-case';
import { diffRuns, type RunDiff } from './run-diff';

/** `chainflow runs diff <a> <b>` and `GET /api/history/diff?a=&b=`: what differs between two runs, redacted. */
/** The API's form: `a` and `b`, both required, nothing else. */
export const DIFF_PARAMS: ParamSpecs = {
  a: { kind: 'id', required: true, description: 'a run id (the first run)' },
  b: { kind: 'id', required: true, description: 'a run id (the second run)' },
};

@injectable()
export class DiffRuns {
  private readonly parser = new QueryParser(DIFF_PARAMS, () => 0);

  constructor(@inject(GetRunTimeline) private readonly timelines: GetRunTimeline) {}

  /** The API's form: `{ a, b }` query parameters, both required, nothing else. */
  async fromQuery(query: Readonly<Record<string, unknown>>): Promise<RunDiff> {
    const params = this.parser.parse(query);
    return this.execute(params.a as string, params.b as string);
  }

  /** `fields`: how the caller named the two runs, for errors (`a`, `b` in the API; `run-a`, `run-b` in the CLI). */
  async execute(a: string, b: string, fields: readonly [string, string] = ['a', 'b']): Promise<RunDiff> {
    // Each timeline is already redacted: the comparison never sees a secret.
    const [ta, tb] = await Promise.all([this.timelines.execute(a, fields[0]), this.timelines.execute(b, fields[1])]);
    return diffRuns(ta, tb);
  }
}
