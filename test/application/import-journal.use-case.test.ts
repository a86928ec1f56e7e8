import { ImportJournal, ImportRejectedError, type LineSource } from '../../src/application/journal/import-journal.use-case';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { aFinish, aPark, aRun, aTxHash, HOUR, iso, T0 } from '../mothers/journal-events';

const source = (lines: readonly string[]): LineSource => ({
  lines: async function* () {
    yield* lines;
  },
});
const lines = (events: readonly unknown[]): string[] => events.map((e) => JSON.stringify(e));

describe('ImportJournal', () => {
  let journal: InMemoryJournal;
  let importJournal: ImportJournal;

  beforeEach(() => {
    journal = new InMemoryJournal();
    importJournal = new ImportJournal(journal);
  });

  it('imports every event, skipping blank lines, and is idempotent', async () => {
    const input = [...lines(aRun({ runId: 'a', send: { txHash: aTxHash('a') } })), '', ...lines(aRun({ runId: 'b' }))];
    const first = await importJournal.execute(source(input));
    expect(first).toMatchObject({ lines: input.length, events: input.length - 1, applied: input.length - 1, duplicates: 0 });
    const again = await importJournal.execute(source(input));
    expect(again).toMatchObject({ applied: 0, duplicates: input.length - 1 });
    expect((await journal.list({}, { limit: 10 })).map((r) => r.runId)).toEqual(['b', 'a']);
  });

  it('names every bad line with its number and reason, and imports nothing', async () => {
    const good = lines(aRun({ runId: 'good' }));
    const input = [
      good[0]!,
      '{not json',
      JSON.stringify({ type: 'run.exploded', at: iso(T0) }),
      JSON.stringify({ type: 'run.finished', at: 'yesterday', run_id: 'good', status: 'succeeded' }),
      JSON.stringify({ type: 'send.queued', at: iso(T0), run_id: 'good', step_run_id: 's', send_id: 'x', network: 'n', chain_id: 1, relayer: 'r', to: '0x', value_wei: '1.5', idempotency_key: 'k' }),
      ...good.slice(1),
    ];
    const error = await importJournal.execute(source(input)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportRejectedError);
    const problems = (error as ImportRejectedError).problems;
    expect(problems.map((p) => p.line)).toEqual([2, 3, 4, 5]);
    expect(problems[0]!.reason).toMatch(/JSON/);
    expect(problems[1]!.reason).toMatch(/type: unknown event type/);
    expect(problems[2]!.reason).toMatch(/^at: /);
    expect(problems[3]!.reason).toMatch(/^value_wei: /);
    expect(await journal.list({}, { limit: 10 })).toEqual([]);
  });

  it('refuses a trigger kind the API does not list (its run items state the four kinds as an enum)', async () => {
    const input = lines(aRun({ runId: 'odd', trigger: { kind: 'carrier_pigeon' } }));
    const error = await importJournal.execute(source(input)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportRejectedError);
    expect((error as ImportRejectedError).problems).toEqual([expect.objectContaining({ line: 1, reason: expect.stringMatching(/^trigger\.kind: /) })]);
  });

  it('names the line of an event the journal refuses, and imports nothing', async () => {
    const input = [
      ...lines(aRun({ runId: 'fine' })),
      '',
      JSON.stringify({ type: 'send.settled', at: iso(T0), send_id: 'ghost', outcome: 'confirmed' }),
    ];
    const error = await importJournal.execute(source(input)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportRejectedError);
    expect((error as ImportRejectedError).problems).toEqual([{ line: input.length, reason: expect.stringMatching(/^send_id: unknown send/) }]);
    expect(await journal.get('fine')).toBeUndefined();
  });

  it('a bad line batches after an event the journal refuses: the bad line is named, as a check of every line first would', async () => {
    const orphan = JSON.stringify({ type: 'send.settled', at: iso(T0), send_id: 'ghost', outcome: 'confirmed' });
    // The refusal comes in the first batch of 5000 events, the bad line after 12,000 more.
    const rest = Array.from({ length: 3000 }, (_, i) => lines(aRun({ runId: `more-${i}`, at: T0 + i }))).flat();
    const input = [...lines(aRun({ runId: 'first' })), orphan, ...rest, '{"type":'];
    const error = await importJournal.execute(source(input)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportRejectedError);
    expect((error as ImportRejectedError).problems).toEqual([{ line: input.length, reason: expect.stringMatching(/JSON/) }]);
    expect(await journal.sizes()).toMatchObject({ runs: 0, events: 0 });
  });

  it('a bad line after batches of good events: named, and nothing of the batches before it is kept', async () => {
    const good = Array.from({ length: 3000 }, (_, i) => lines(aRun({ runId: `good-${i}`, at: T0 + i }))).flat();
    const input = [...good, 'not json', ...lines(aRun({ runId: 'after' }))];
    const error = await importJournal.execute(source(input)).catch((e: unknown) => e);
    expect((error as ImportRejectedError).problems).toEqual([{ line: good.length + 1, reason: expect.stringMatching(/JSON/) }]);
    expect(await journal.sizes()).toMatchObject({ runs: 0, events: 0 });
  });

  it('names the line of a finished run parked, and imports nothing', async () => {
    const input = [
      ...lines(aRun({ runId: 'before' })),
      ...lines(aRun({ runId: 'ended', at: T0 + HOUR })),
      '',
      JSON.stringify(aPark('ended', T0 + 2 * HOUR, { waitKind: 'delay' })),
      JSON.stringify(aFinish('ended', T0 + 3 * HOUR, 'failed', 'late_error')),
    ];
    const error = await importJournal.execute(source(input)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportRejectedError);
    const parkLine = input.length - 1;
    expect((error as ImportRejectedError).message).toBe(`line ${parkLine}: run_id: the run already succeeded: a finished run cannot be parked`);
    expect(await journal.list({}, { limit: 10 })).toEqual([]);
    expect(await journal.sizes()).toMatchObject({ runs: 0, events: 0 });
  });

  it('imports the same history with its parks, resumes and late settle twice as once', async () => {
    const input = lines([
      ...aRun({ runId: 'cycle', status: 'running', send: { status: 'submitted', txHash: aTxHash('cycle') } }),
      aPark('cycle', T0 + HOUR, { waitKind: 'tx' }),
      aFinish('cycle', T0 + 2 * HOUR),
      { type: 'send.settled', at: iso(T0 + 3 * HOUR), send_id: 'cycle.send', outcome: 'confirmed', tx_hash: aTxHash('cycle') },
    ]);
    expect(await importJournal.execute(source(input))).toMatchObject({ applied: input.length, duplicates: 0 });
    expect(await importJournal.execute(source(input))).toMatchObject({ applied: 0, duplicates: input.length });
    expect(await journal.get('cycle')).toMatchObject({ status: 'succeeded', txHashes: [aTxHash('cycle')] });
  });
});
