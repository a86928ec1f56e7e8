import { ExportHistory } from '../../src/application/history/export-history.use-case';
import type { TextSink } from '../../src/application/ports/text-sink';
import { InvalidInputError } from '../../src/domain/errors';
import { ExplorerLinks } from '../../src/domain/explorer';
import { REDACTED, Redactor } from '../../src/domain/redactor';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { InMemorySpools } from '../fakes/in-memory-spools';
import { aRun, aTxHash, DAY, MINUTE, T0 } from '../mothers/journal-events';

class StringSink implements TextSink {
  text = '';
  writes = 0;
  async write(chunk: string): Promise<void> {
    this.text += chunk;
    this.writes++;
  }
}

describe('ExportHistory', () => {
  let journal: InMemoryJournal;
  let exporter: ExportHistory;
  let spools: InMemorySpools;

  beforeEach(async () => {
    journal = new InMemoryJournal();
    spools = new InMemorySpools();
    exporter = new ExportHistory(journal, journal, new ExplorerLinks(), new Redactor(['s3cr3t-token']), new FixedClock(T0 + DAY), spools);
    await journal.append([
      ...aRun({ runId: 'ok-1', workflow: 'payouts', at: T0, send: { txHash: aTxHash('a'), relayer: 'ops' }, approval: { decision: 'approved', reason: 'ok s3cr3t-token' } }),
      ...aRun({ runId: 'bad-1', workflow: 'payouts', at: T0 + MINUTE, failure: { kind: 'http_error', message: 'boom s3cr3t-token' } }),
      ...aRun({ runId: 'other', workflow: 'keeper', at: T0 + 2 * MINUTE }),
    ]);
  });

  it('writes { runs, steps, sends, approvals, failures } for the filtered runs, redacted', async () => {
    const sink = new StringSink();
    const { filter, format } = exporter.parse({ workflow: 'payouts' });
    const report = await exporter.execute(filter, format, sink);
    const doc = JSON.parse(sink.text) as Record<string, Array<Record<string, unknown>>>;
    expect(Object.keys(doc)).toEqual(['runs', 'steps', 'sends', 'approvals', 'failures']);
    expect(doc.runs!.map((r) => r.run_id)).toEqual(['bad-1', 'ok-1']);
    expect(doc.steps!.every((s) => s.run_id === 'ok-1' || s.run_id === 'bad-1')).toBe(true);
    expect(doc.sends!.map((s) => s.tx_hash)).toEqual([aTxHash('a')]);
    expect(doc.approvals!.map((a) => a.reason)).toEqual([`ok ${REDACTED}`]);
    expect(doc.failures).toEqual([expect.objectContaining({ run_id: 'bad-1', error_kind: 'http_error', error_message: `boom ${REDACTED}` })]);
    expect(sink.text).not.toContain('s3cr3t-token');
    expect(report).toEqual({ runs: 2, steps: doc.steps!.length, sends: 1, approvals: 1, failures: 1 });
  });

  it('writes csv: a header and one row per run, lists joined by a space, cells quoted and defused', async () => {
    await journal.append(aRun({ runId: 'csv-1', workflow: '=cmd|x,y', at: T0 + 3 * MINUTE, send: { txHash: aTxHash('c'), relayer: 'ops' } }));
    const sink = new StringSink();
    const { filter, format } = exporter.parse({ format: 'csv' });
    await exporter.execute(filter, format, sink);
    const lines = sink.text.trimEnd().split('\n');
    expect(lines[0]).toBe('run_id,workflow,status,trigger,session,session_id,network,contract,relayers,tx_hashes,block,step_ids,error_kind,approval_status,wait_kind,replay_of,created_at,finished_at,duration_ms');
    expect(lines).toHaveLength(5);
    expect(lines[1]).toMatch(/^csv-1,"'=cmd\|x,y",succeeded,/);
    expect(lines[1]).toContain(`,ops,${aTxHash('c')},`);
  });

  it('refuses a bad format or filter before writing anything', () => {
    expect(() => exporter.parse({ format: 'xml' })).toThrow(InvalidInputError);
    expect(() => exporter.parse({ bogus: '1' })).toThrow(InvalidInputError);
  });

  it('pages through many runs with constant-size reads', async () => {
    await journal.append(Array.from({ length: 1200 }, (_, i) => aRun({ runId: `bulk-${i}`, workflow: 'bulk', at: T0 - i * MINUTE, steps: [] })).flat());
    const sink = new StringSink();
    const report = await exporter.execute(exporter.parse({ workflow: 'bulk', format: 'csv' }).filter, 'csv', sink);
    expect(report.runs).toBe(1200);
    expect(new Set(sink.text.trimEnd().split('\n').slice(1).map((l) => l.split(',')[0])).size).toBe(1200);
  });

  it('pages JSON through many runs: every section in the order of the runs, across pages', async () => {
    const runs = Array.from({ length: 1200 }, (_, i) => aRun({
      runId: `bulk-${String(i).padStart(4, '0')}`, workflow: 'bulk', at: T0 - i * MINUTE,
      ...(i % 100 === 0 ? { approval: { decision: 'approved' as const, reason: `ok ${i}` } } : {}),
      ...(i % 150 === 7 ? { failure: { kind: 'http_error', message: `boom ${i}` } } : {}),
    }));
    await journal.append(runs.flat());
    const sink = new StringSink();
    const report = await exporter.execute(exporter.parse({ workflow: 'bulk' }).filter, 'json', sink);
    const doc = JSON.parse(sink.text) as Record<string, Array<Record<string, unknown>>>;
    const order = Array.from({ length: 1200 }, (_, i) => `bulk-${String(i).padStart(4, '0')}`);
    expect(doc.runs!.map((r) => r.run_id)).toEqual(order);
    expect(doc.steps!.map((s) => s.run_id)).toEqual(order);
    // Approvals come a page of runs (500) at a time, in the order the repository gives a page's approvals.
    const approvalRuns = doc.approvals!.map((a) => Number(/^ok (\d+)$/.exec(String(a.reason))![1]));
    expect([...approvalRuns].sort((a, b) => a - b)).toEqual(order.flatMap((_, i) => (i % 100 === 0 ? [i] : [])));
    expect(approvalRuns.map((i) => Math.floor(i / 500))).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2]);
    expect(doc.failures!.map((f) => f.run_id)).toEqual(order.filter((_, i) => i % 150 === 7));
    expect(report).toEqual({ runs: 1200, steps: 1200, sends: 0, approvals: 12, failures: 8 });
    expect(spools.opened.length).toBeGreaterThan(0);
    expect(spools.live).toBe(0);
  });

  it('shows in every JSON section the runs of `runs` alone, even when a run is journaled during the export', async () => {
    const late = aRun({ runId: 'late', workflow: 'payouts', at: T0 + 5 * MINUTE, send: { txHash: aTxHash('f'), relayer: 'ops' }, approval: { decision: 'approved', reason: 'late' }, failure: { kind: 'http_error', message: 'late' } });
    const sink = new (class extends StringSink {
      override async write(chunk: string): Promise<void> {
        if (chunk.startsWith('],"steps"')) await journal.append(late);
        await super.write(chunk);
      }
    })();
    await exporter.execute(exporter.parse({ workflow: 'payouts' }).filter, 'json', sink);
    expect(sink.text).not.toContain('late');
    const doc = JSON.parse(sink.text) as Record<string, Array<Record<string, unknown>>>;
    expect(doc.runs!.map((r) => r.run_id)).toEqual(['bad-1', 'ok-1']);
    expect(new Set(doc.steps!.map((s) => s.run_id))).toEqual(new Set(['bad-1', 'ok-1']));
  });

  it('discards its scratch spools when the sink fails midway', async () => {
    let writes = 0;
    const failing: TextSink = {
      write: async () => {
        if (++writes === 4) throw new Error('disk full');
      },
    };
    await expect(exporter.execute(exporter.parse({}).filter, 'json', failing)).rejects.toThrow('disk full');
    expect(spools.opened.length).toBeGreaterThan(0);
    expect(spools.live).toBe(0);
  });

  it('fails with the storage when a page read ahead fails, and discards its spools', async () => {
    await journal.append(Array.from({ length: 1600 }, (_, i) => aRun({ runId: `bulk-${i}`, workflow: 'bulk', at: T0 - i * MINUTE })).flat());
    const asked: number[] = [];
    const failing = Object.assign(Object.create(journal) as InMemoryJournal, {
      sendItemsOfRuns: async (ids: readonly string[]): Promise<string[]> => {
        asked.push(ids.length);
        // The second page fails at once, while the first is still being read: its failure waits its turn.
        if (asked.length === 2) throw new Error('disk I/O error');
        await new Promise((resolve) => setTimeout(resolve, 20));
        return [];
      },
    });
    const exporting = new ExportHistory(journal, failing, new ExplorerLinks(), new Redactor([]), new FixedClock(T0 + DAY), spools);
    const sink = new StringSink();
    await expect(exporting.execute(exporting.parse({ workflow: 'bulk' }).filter, 'json', sink)).rejects.toThrow('disk I/O error');
    // Pages of the section are asked for two ahead of the one written (the third once the first is written).
    expect(asked).toEqual([500, 500, 500]);
    expect(sink.text).toContain('],"sends":[');
    expect(spools.live).toBe(0);
  });

  it('fails with the storage when the approvals of a page of runs, read beside the next page, fail', async () => {
    await journal.append(Array.from({ length: 1600 }, (_, i) => aRun({ runId: `bulk-${i}`, workflow: 'bulk', at: T0 - i * MINUTE })).flat());
    let asked = 0;
    const failing = Object.assign(Object.create(journal) as InMemoryJournal, {
      approvalsOfRuns: async (ids: readonly string[]) => {
        // The second page's approvals fail at once, while the first page is still being written.
        if (++asked === 2) throw new Error('disk I/O error');
        await new Promise((resolve) => setTimeout(resolve, 20));
        return journal.approvalsOfRuns(ids);
      },
    });
    const exporting = new ExportHistory(journal, failing, new ExplorerLinks(), new Redactor([]), new FixedClock(T0 + DAY), spools);
    const sink = new StringSink();
    await expect(exporting.execute(exporting.parse({ workflow: 'bulk' }).filter, 'json', sink)).rejects.toThrow('disk I/O error');
    // The first page of runs was written; nothing after the runs section was.
    expect(sink.text.startsWith('{"runs":[')).toBe(true);
    expect(sink.text).not.toContain('"steps"');
    expect(spools.live).toBe(0);
  });

  it('discards the spools it opened when opening another fails, and writes nothing', async () => {
    let opens = 0;
    const flaky = new (class extends InMemorySpools {
      override async open() {
        if (++opens === 2) throw new Error('no space left for scratch files');
        return super.open();
      }
    })();
    const failing = new ExportHistory(journal, journal, new ExplorerLinks(), new Redactor([]), new FixedClock(T0 + DAY), flaky);
    const sink = new StringSink();
    await expect(failing.execute(failing.parse({}).filter, 'json', sink)).rejects.toThrow('no space left');
    expect(flaky.opened).toHaveLength(1);
    expect(flaky.live).toBe(0);
    expect(sink.text).toBe('');
  });
});

