/**
 * The writer beside the readers of `bench --read`: a process of its own appending new runs to the journal, a few
 * at a time, each append its own transaction (as the engine writes), until it is stopped.
 * Usage: node dist/bench/read-writer.js CONFIG FIRST_RUN_INDEX
 */
import 'reflect-metadata';
import { dirname } from 'node:path';
import { JournalWriter } from '../src/application/ports/journal-writer';
import type { JournalEvent } from '../src/domain/journal/journal-event';
import { openRoot } from '../src/bin/root';
import { DAY, runLines, SPAN_DAYS } from './generate';

const RUNS_PER_APPEND = 5;
const MAX_RUNS = 1_000_000;

async function main(): Promise<void> {
  const [configPath, fromText] = process.argv.slice(2);
  const from = Number(fromText);
  if (!configPath || !Number.isSafeInteger(from)) throw new Error('usage: read-writer.js CONFIG FIRST_RUN_INDEX');
  const root = await openRoot({ cwd: dirname(configPath), configPath, profile: 'tool' });
  let stop = false;
  process.on('SIGTERM', () => (stop = true));
  const journal = root.container.get<JournalWriter>(JournalWriter);
  // Dated from now on: run `from` starts now.
  const runs = from + MAX_RUNS;
  const shape = { runs, end: Date.now() + SPAN_DAYS * DAY * (1 - from / runs) };
  try {
    for (let i = from; !stop && i < from + MAX_RUNS; i += RUNS_PER_APPEND) {
      const events: JournalEvent[] = [];
      for (let k = i; k < i + RUNS_PER_APPEND; k++) for (const line of runLines(shape, k)) events.push(JSON.parse(line) as JournalEvent);
      await journal.append(events);
    }
  } finally {
    await root.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[read-writer] ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
