import { GetRunTimeline } from '../../src/application/history/get-run-timeline.use-case';
import { timelineEvents, type StepEvent } from '../../src/application/history/timeline';
import { InvalidInputError, NotFoundError } from '../../src/domain/errors';
import { ExplorerLinks } from '../../src/domain/explorer';
import { REDACTED, Redactor } from '../../src/domain/redactor';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { aFinish, aPark, aRun, aTxHash, HOUR, iso, T0 } from '../mothers/journal-events';

describe('GetRunTimeline', () => {
  let journal: InMemoryJournal;
  let timeline: GetRunTimeline;

  beforeEach(async () => {
    journal = new InMemoryJournal();
    timeline = new GetRunTimeline(journal, new ExplorerLinks(), new Redactor(['sk-live-123456']));
  });

  it('lists trigger, steps, approval and reorg steps chronologically with all the run detail', async () => {
    await journal.append(aRun({
      runId: 'full', at: T0, network: 'sepolia',
      trigger: { kind: 'webhook', summary: 'POST /hooks/pay', payload: { note: 'key sk-live-123456' } },
      conditions: [{ name: 'min_amount', passed: true }],
      steps: [{ stepId: 'fetch', failedAttempts: 1, retryError: { kind: 'http_error' }, input: { headers: { auth: 'x' } }, output: { ok: true } }],
      send: { stepId: 'pay', relayer: 'ops', network: 'sepolia', chainId: 11155111, txHash: aTxHash('pay'), outcome: 'confirmed',
        simulation: { ok: true, gasEstimate: '21000' }, budgetChecks: [{ budget: 'daily', spentWei: '1', capWei: '10', allowed: true }] },
      approval: { decision: 'approved', by: 'alice', reason: 'ok' },
      reorg: { reorgId: 'rg-1' },
    }));
    const { run, events } = await timeline.execute('full');
    expect(run.run_id).toBe('full');
    expect(events.map((e) => e.kind)).toEqual(expect.arrayContaining(['trigger', 'step', 'approval', 'reorg_step']));
    expect(events[0]!.kind).toBe('trigger');
    const ats = events.map((e) => e.at);
    expect([...ats].sort()).toEqual(ats);

    const trigger = events[0] as Extract<typeof events[number], { kind: 'trigger' }>;
    expect(trigger.trigger.payload).toEqual({ note: `key ${REDACTED}` });
    expect(trigger.conditions).toEqual([{ name: 'min_amount', passed: true, detail: null }]);

    const fetch = events.find((e) => e.kind === 'step' && e.step_id === 'fetch') as StepEvent;
    expect(fetch.attempts.map((a) => [a.attempt, a.status])).toEqual([[1, 'failed'], [2, 'succeeded']]);
    expect(fetch.attempts[0]!.error).toMatchObject({ kind: 'http_error' });
    expect(fetch.input).toEqual({ headers: REDACTED });

    const pay = events.find((e) => e.kind === 'step' && e.step_id === 'pay') as StepEvent;
    expect(pay.simulation).toMatchObject({ ok: true, gas_estimate: '21000' });
    expect(pay.budget_checks).toEqual([expect.objectContaining({ budget: 'daily', allowed: true })]);
    expect(pay.sends).toEqual([expect.objectContaining({
      status: 'settled', outcome: 'confirmed', tx_hash: aTxHash('pay'), relayer: 'ops',
      explorer_url: `https://sepolia.etherscan.io/tx/${aTxHash('pay')}`,
    })]);

    const approval = events.find((e) => e.kind === 'approval');
    expect(approval).toMatchObject({ approval: { status: 'approved', decided_by: 'alice', reason: 'ok' } });
    expect(events.filter((e) => e.kind === 'reorg_step').length).toBeGreaterThan(0);
  });

  it('shows where a parked run waits', async () => {
    await journal.append(aRun({ runId: 'parked', park: { waitKind: 'tx' }, send: { status: 'submitted', txHash: aTxHash('p') } }));
    const { run, events } = await timeline.execute('parked');
    expect(run).toMatchObject({ status: 'waiting', wait_kind: 'tx' });
    const waiting = events.filter((e): e is StepEvent => e.kind === 'step' && e.wait !== null);
    expect(waiting).toHaveLength(1);
    expect(waiting[0]!.wait).toMatchObject({ wait_kind: 'tx', resumed_at: null });
  });

  it('shows a stream stored before the journal guarded lifecycles, leaving out of its projections what it refuses today', () => {
    // A finished run parked and finished again, its approval decided twice: accepted by earlier versions.
    const stored = [
      ...aRun({ runId: 'old', at: T0, approval: { decision: 'approved', by: 'alice' }, send: { txHash: aTxHash('old') } }),
      aPark('old', T0 + HOUR, { waitKind: 'delay' }),
      { type: 'approval.decided' as const, at: iso(T0 + HOUR), approval_id: 'old.approval', decision: 'rejected' as const, by: 'mallory' },
      aFinish('old', T0 + 2 * HOUR, 'failed', 'late_error'),
    ];
    const events = timelineEvents(stored, new ExplorerLinks());
    expect(events.filter((e) => e.kind === 'approval')).toEqual([expect.objectContaining({ approval: expect.objectContaining({ status: 'approved', decided_by: 'alice' }) })]);
    const pay = events.find((e): e is StepEvent => e.kind === 'step' && e.step_id === 'submit_tx')!;
    expect(pay.sends).toEqual([expect.objectContaining({ status: 'settled', tx_hash: aTxHash('old') })]);
    expect(pay.wait).toMatchObject({ wait_kind: 'delay', resumed_at: iso(T0 + 2 * HOUR) });
  });

  it('refuses a malformed run id and reports an unknown run', async () => {
    await expect(timeline.execute('bad id')).rejects.toBeInstanceOf(InvalidInputError);
    await expect(timeline.execute('x'.repeat(200))).rejects.toBeInstanceOf(InvalidInputError);
    await expect(timeline.execute('missing')).rejects.toBeInstanceOf(NotFoundError);
  });
});
