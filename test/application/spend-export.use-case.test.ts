import type { TextSink } from '../../src/application/ports/text-sink';
import { ExportSpend } from '../../src/application/spend/export-spend.use-case';
import { InvalidInputError } from '../../src/domain/errors';
import { Redactor } from '../../src/domain/redactor';
import type { LedgerEntry } from '../../src/domain/spend/ledger-entry';
import { anEntry } from '../contract/spend.contract';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemorySpendLedger } from '../fakes/in-memory-spend';
import { aTxHash, HOUR, iso, MINUTE, T0 } from '../mothers/journal-events';

const HEADER = 'recorded_at,workflow,relayer,network,chain_id,tx_hash,gas_used,effective_gas_price,gas_spend_wei,value_wei,reverted,run_id,step_run_id';

class StringSink implements TextSink {
  text = '';
  chunks = 0;
  async write(chunk: string): Promise<void> {
    this.text += chunk;
    this.chunks++;
  }
}

describe('ExportSpend', () => {
  let ledger: InMemorySpendLedger;
  let exporter: ExportSpend;

  beforeEach(() => {
    ledger = new InMemorySpendLedger();
    exporter = new ExportSpend(ledger, new Redactor([]), new FixedClock(T0));
  });

  const run = async (query: Record<string, unknown>): Promise<{ text: string; count: number }> => {
    const { filter, format } = exporter.parse(query);
    const sink = new StringSink();
    const count = await exporter.execute(filter, format, sink);
    return { text: sink.text, count };
  };

  const entry = anEntry({
    stepRunId: 'run-1.pay', recordedAt: T0 - HOUR, workflow: 'payouts', relayer: 'ops', network: 'sepolia', chainId: 11155111,
    txHash: aTxHash('one'), gasUsed: 21000n, effectiveGasPrice: 1_000_000_007n, gasSpendWei: (1n << 255n) + 9n, valueWei: 12345n, reverted: false,
  });

  it('writes the SPEC columns in the SPEC order, then one row per entry in the same order', async () => {
    await ledger.append([entry, anEntry({ stepRunId: 'run-2.pay', recordedAt: T0 - MINUTE, reverted: true, valueWei: 0n, gasSpendWei: 5n, effectiveGasPrice: 5n })]);
    const { text, count } = await run({ format: 'csv' });
    expect(count).toBe(2);
    const lines = text.split('\n');
    expect(lines[0]).toBe(HEADER);
    expect(lines[1]).toBe([
      iso(T0 - HOUR), 'payouts', 'ops', 'sepolia', '11155111', aTxHash('one'), '21000', '1000000007', ((1n << 255n) + 9n).toString(), '12345', 'false',
      'run-1', 'run-1.pay',
    ].join(','));
    expect(lines[2]).toBe([
      iso(T0 - MINUTE), 'payouts', 'ops', 'sepolia', '11155111', aTxHash('run-2.pay'), '1', '5', '5', '0', 'true', 'run-2', 'run-2.pay',
    ].join(','));
    expect(lines.slice(3)).toEqual(['']);
  });

  it('lists a reorged entry in JSON, marked, and leaves it out of the CSV (its columns are SPEC\'s)', async () => {
    const landedAgain = { ...entry, recordedAt: T0 - MINUTE, gasSpendWei: 3n, effectiveGasPrice: 3n, gasUsed: 1n };
    await ledger.append([entry]);
    ledger.reorgEntry({ stepRunId: entry.stepRunId, txHash: entry.txHash, removedBlockHash: `0x${'ab'.repeat(32)}`, at: T0 - 30 * MINUTE });
    await ledger.append([landedAgain]);
    const json = JSON.parse((await run({ format: 'json' })).text) as { entries: Array<{ reorged: boolean; gas_spend_wei: string }> };
    expect(json.entries.map((e) => [e.gas_spend_wei, e.reorged])).toEqual([[entry.gasSpendWei.toString(), true], ['3', false]]);
    const csv = await run({ format: 'csv' });
    expect(csv.count).toBe(1);
    expect(csv.text.split('\n')[1]).toContain(`,${aTxHash('one')},1,3,3,12345,false,`);
  });

  it('defaults to CSV', async () => {
    await ledger.append([entry]);
    expect((await run({})).text.split('\n')[0]).toBe(HEADER);
  });

  it('writes json as { entries: [...] }, oldest first, across many pages', async () => {
    const many: LedgerEntry[] = Array.from({ length: 2345 }, (_, i) => anEntry({ stepRunId: `m${i}.pay`, recordedAt: T0 - (3000 - i) * MINUTE, gasSpendWei: BigInt(i) }));
    await ledger.append([...many].reverse());
    const { text, count } = await run({ format: 'json' });
    expect(count).toBe(2345);
    const parsed = JSON.parse(text) as { entries: Record<string, unknown>[] };
    expect(Object.keys(parsed)).toEqual(['entries']);
    expect(parsed.entries.map((e) => e.step_run_id)).toEqual(many.map((e) => e.stepRunId));
    expect(parsed.entries[7]).toEqual({
      recorded_at: iso(T0 - 2993 * MINUTE), workflow: 'payouts', run_id: 'm7', step_run_id: 'm7.pay', relayer: 'ops', network: 'sepolia',
      chain_id: 11155111, tx_hash: aTxHash('m7.pay'), gas_used: '1', effective_gas_price: '7', gas_spend_wei: '7', value_wei: '0', reverted: false, reorged: false,
    });
  });

  it('exports valid output from an empty ledger', async () => {
    const csv = await run({ format: 'csv' });
    expect(csv).toEqual({ text: `${HEADER}\n`, count: 0 });
    const json = await run({ format: 'json' });
    expect(json.count).toBe(0);
    expect(JSON.parse(json.text)).toEqual({ entries: [] });
  });

  it('exports only the filtered entries', async () => {
    await ledger.append([
      anEntry({ stepRunId: 'old.pay', recordedAt: T0 - 48 * HOUR }),
      anEntry({ stepRunId: 'new.pay', recordedAt: T0 - HOUR }),
      anEntry({ stepRunId: 'other.pay', recordedAt: T0 - HOUR, workflow: 'keeper' }),
    ]);
    const { text } = await run({ format: 'json', since: '24h', workflow: 'payouts' });
    expect((JSON.parse(text) as { entries: { step_run_id: string }[] }).entries.map((e) => e.step_run_id)).toEqual(['new.pay']);
  });

  it('refuses a bad format or an unknown parameter before writing anything', () => {
    expect(() => exporter.parse({ format: 'xml' })).toThrow(InvalidInputError);
    expect(() => exporter.parse({ format: 'xml' })).toThrow(/format/);
    expect(() => exporter.parse({ out: 'file.csv' })).toThrow(/out/);
  });
});
