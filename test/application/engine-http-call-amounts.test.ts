/** An http_call's JSON answer keeps its big numbers exact in the step's output (CONTRACT 8.8), as inputs do. */
import { StepRunners } from '../../src/application/engine/step-runners';
import { CelExpressions } from '../../src/adapters/cel';
import { LosslessJson } from '../../src/adapters/json/exact-json';
import { FixedClock } from '../fakes/fixed-clock';
import { ScriptedHttpClient } from '../fakes/scripted-http-client';
import { anHttpCall } from '../mothers/workflows';

describe('http_call output amounts', () => {
  it('keeps an integer beyond 2^53 of a JSON answer as its exact decimal text; safe numbers stay numbers', async () => {
    const http = new ScriptedHttpClient().on('https://quotes.example', {
      status: 200, contentType: 'application/json', body: '{"amount": 1152921504606846977, "fee": 21000, "price": 1.5}',
    });
    const runners = new StepRunners(http, new CelExpressions(), new FixedClock(0), undefined, undefined, new LosslessJson());
    const step = anHttpCall('quote', { url: 'https://quotes.example/v1' });
    const prepared = runners.prepare(step, { runId: 'r1', stepRunId: 'r1.quote', attempt: 1, scope: {} });
    const result = await prepared.run();
    expect(result.kind).toBe('succeeded');
    expect((result as unknown as { output: { body: unknown } }).output.body).toEqual({ amount: '1152921504606846977', fee: 21000, price: 1.5 });
  });
});
