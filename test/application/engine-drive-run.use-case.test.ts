/**
 * The runner (CONTRACT 8.2) on fakes of its ports: conditions, step ifs, retries as parked delays, approvals,
 * delays, crashes mid-step (at-least-once; a poison run is dead-lettered), definitions that changed, cancels.
 */
import { CelExpressions } from '../../src/adapters/cel';
import type { ChainflowConfig, WorkflowConfig } from '../../src/application/config';
import { CancelRun } from '../../src/application/engine/cancel-run.use-case';
import { DecideApproval } from '../../src/application/engine/decide-approval.use-case';
import { DriveRun } from '../../src/application/engine/drive-run.use-case';
import { StartRun } from '../../src/application/engine/start-run.use-case';
import { StepRunners } from '../../src/application/engine/step-runners';
import { WorkflowCatalog } from '../../src/application/workflow-catalog';
import { HttpFailure } from '../../src/application/ports/http-client';
import type { ClaimedRun } from '../../src/application/ports/engine-store';
import type { WorkflowDefinition } from '../../src/domain/engine/workflow';
import { ConflictError, StorageError } from '../../src/domain/errors';
import type { AppendOptions, AppendResult, JournalWriter } from '../../src/application/ports/journal-writer';
import type { AttemptContext, PreparedAttempt } from '../../src/application/engine/step-runners';
import type { StepDefinition } from '../../src/domain/engine/workflow';
import type { JournalEvent } from '../../src/domain/journal/journal-event';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryEngineStore } from '../fakes/in-memory-engine-store';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { ok, ScriptedHttpClient, status } from '../fakes/scripted-http-client';
import { T0 } from '../mothers/journal-events';
import { aDelay, anApproval, anHttpCall, aWorkflow } from '../mothers/workflows';

const OWNER = 'engine-a';
const TTL = 15_000;

function configOf(...workflows: WorkflowDefinition[]): ChainflowConfig {
  const entries: [string, WorkflowConfig][] = workflows.map((w) => [w.name, { name: w.name, budgets: [], definition: {}, engine: w }]);
  return {
    server: { host: '127.0.0.1', port: 8080, healthPublic: true, metricsPublic: false }, storage: { url: 'sqlite::memory:' },
    networks: new Map(), relayers: new Map(), budgets: new Map(), workflows: new Map(entries), secretValues: [],
  };
}

class Harness {
  readonly clock = new FixedClock(T0);
  readonly store = new InMemoryEngineStore();
  readonly journal = new InMemoryJournal({ schedule: this.store });
  readonly http = new ScriptedHttpClient();
  readonly expressions = new CelExpressions();
  catalog: WorkflowCatalog;
  drive: DriveRun;
  start: StartRun;

  constructor(...workflows: WorkflowDefinition[]) {
    this.catalog = new WorkflowCatalog(configOf(...workflows));
    this.drive = this.driver();
    this.start = new StartRun(this.catalog, this.journal, this.store, this.journal, this.clock);
  }

  /** The same engine code over a changed configuration (after a restart with another chainflow.yaml). */
  reconfigure(...workflows: WorkflowDefinition[]): void {
    this.catalog = new WorkflowCatalog(configOf(...workflows));
    this.drive = this.driver();
    this.start = new StartRun(this.catalog, this.journal, this.store, this.journal, this.clock);
  }

  private driver(): DriveRun {
    const steps = new StepRunners(this.http, this.expressions, this.clock);
    return new DriveRun(this.journal, this.journal, this.store, this.catalog, steps, this.expressions, this.clock);
  }

  async run(workflow: string, payload: Record<string, unknown> = {}, session: 'live' | 'test' = 'live'): Promise<string> {
    const { runId } = await this.start.execute({ workflow, session, trigger: { kind: 'manual', summary: 'manual by test', payload: payload as never } });
    await this.tick();
    return runId;
  }

  /** One engine pass: claim what is due now and drive it. */
  async tick(owner = OWNER): Promise<ClaimedRun[]> {
    const claims = await this.store.claimDue(owner, this.clock.now(), this.clock.now() + TTL, 100);
    for (const c of claims) await this.drive.execute(c, owner);
    return claims;
  }

  async status(runId: string): Promise<string | undefined> {
    return (await this.journal.get(runId))?.status;
  }

  async events(runId: string, type?: JournalEvent['type']): Promise<JournalEvent[]> {
    return (await this.journal.stream(runId)).filter((e) => type === undefined || e.type === type);
  }
}

const locked = (): StorageError => new StorageError('insert into events', 'the database is locked by another process (SQLITE_BUSY)', 'SQLITE_BUSY', true);

/** The journal, whose appends numbered in `failing` (1-based) fail as a locked database does. */
class LockedAppends implements JournalWriter {
  private calls = 0;
  constructor(private readonly inner: JournalWriter, private readonly failing: ReadonlySet<number>) {}

  async append(events: readonly JournalEvent[], options?: AppendOptions): Promise<AppendResult> {
    if (this.failing.has(++this.calls)) throw locked();
    return this.inner.append(events, options);
  }

  appendAll(batches: AsyncIterable<readonly JournalEvent[]>, onBatch?: (done: AppendResult) => void): Promise<AppendResult> {
    return this.inner.appendAll(batches, onBatch);
  }
}

describe('DriveRun', () => {
  it('runs the steps in order, each journaled with its resolved input and output, and ends succeeded', async () => {
    const h = new Harness(aWorkflow({ steps: [anHttpCall('quote', { method: 'POST', url: 'https://api.example/q/${{ trigger.payload.asset }}', body: { amount: '${{ trigger.payload.amount }}' }, headers: { Authorization: 'secret-key' } }), anHttpCall('notify')] }));
    h.http.on('https://api.example/q/', ok({ price: 7 }));
    const runId = await h.run('payouts', { asset: 'eth', amount: 5 });
    expect(await h.status(runId)).toBe('succeeded');
    expect(h.http.requests.map((r) => [r.method, r.url, r.body])).toEqual([['POST', 'https://api.example/q/eth', '{"amount":"5"}'], ['GET', 'https://api.example/notify', undefined]]);
    expect(h.http.requests[0]!.headers).toMatchObject({ Authorization: 'secret-key' });
    const [started] = await h.events(runId, 'step.started');
    // The header's value reaches the called server, never the journal.
    expect(started).toMatchObject({ step_run_id: `${runId}.quote`, attempt: 1, input: { method: 'POST', url: 'https://api.example/q/eth', headers: { Authorization: '<redacted>' }, body: { amount: '5' } } });
    expect(JSON.stringify(await h.events(runId))).not.toContain('secret-key');
    const [finished] = await h.events(runId, 'step.finished');
    expect(finished).toMatchObject({ status: 'succeeded', output: { status: 200, body: { price: 7 } } });
    expect(h.store.scheduled()).toEqual([]);
  });

  it('a failing condition ends the run skipped; a false if skips the step only; later steps see earlier outputs', async () => {
    const h = new Harness(
      aWorkflow({ name: 'guarded', conditions: [{ name: 'positive', if: 'int(trigger.payload.amount) > 0' }], steps: [anHttpCall('a')] }),
      aWorkflow({ name: 'branchy', steps: [anHttpCall('a'), anHttpCall('b', { if: "steps.a.status == 'failed'" }), anHttpCall('c', { if: 'steps.a.output.body.ok', url: 'https://api.example/c/${{ steps.a.output.status }}' })] }),
    );
    const skipped = await h.run('guarded', { amount: '0' });
    expect(await h.status(skipped)).toBe('skipped');
    expect((await h.events(skipped, 'run.conditions'))[0]).toMatchObject({ results: [{ name: 'positive', passed: false }] });
    expect(await h.events(skipped, 'step.started')).toEqual([]);
    const passed = await h.run('guarded', { amount: '3' });
    expect(await h.status(passed)).toBe('succeeded');
    const branchy = await h.run('branchy');
    expect(await h.status(branchy)).toBe('succeeded');
    expect((await h.events(branchy, 'step.finished')).map((e) => e.type === 'step.finished' && e.status)).toEqual(['succeeded', 'skipped', 'succeeded']);
    expect(h.http.requests.map((r) => r.url)).toContain('https://api.example/c/200');
  });

  it('retries a 5xx as parked delays with backoff, each attempt journaled, until it succeeds', async () => {
    const h = new Harness(aWorkflow({ steps: [anHttpCall('flaky', { retry: { attempts: 3, backoffMs: 1000, maxBackoffMs: 60_000 } })] }));
    h.http.on('https://api.example/flaky', status(503), new HttpFailure('timeout', 'timed out'), ok());
    const runId = await h.run('payouts');
    expect(await h.status(runId)).toBe('waiting');
    const [park] = await h.events(runId, 'run.parked');
    expect(park).toMatchObject({ wait_kind: 'delay', step_run_id: `${runId}.flaky`, due_at: new Date(T0 + 1000).toISOString() });
    h.clock.advance(999);
    expect(await h.tick()).toEqual([]);
    h.clock.advance(1);
    await h.tick();
    expect(await h.status(runId)).toBe('waiting');
    expect((await h.events(runId, 'run.parked'))[1]).toMatchObject({ due_at: new Date(T0 + 1000 + 2000).toISOString() });
    h.clock.advance(2000);
    await h.tick();
    expect(await h.status(runId)).toBe('succeeded');
    expect((await h.events(runId, 'step.started')).map((e) => e.type === 'step.started' && e.attempt)).toEqual([1, 2, 3]);
    expect((await h.events(runId, 'step.finished')).map((e) => e.type === 'step.finished' && e.error?.kind)).toEqual(['http_status', 'http_timeout', undefined]);
  });

  it('a 4xx and an exhausted retry policy fail the run with the step\'s error kind', async () => {
    const h = new Harness(aWorkflow({ name: 'four', steps: [anHttpCall('x')] }), aWorkflow({ name: 'down', steps: [anHttpCall('y', { retry: { attempts: 2, backoffMs: 10, maxBackoffMs: 10 } })] }));
    h.http.on('https://api.example/x', status(404)).on('https://api.example/y', new HttpFailure('network', 'network error ECONNREFUSED'));
    const four = await h.run('four');
    expect(await h.status(four)).toBe('failed');
    expect((await h.journal.get(four))!.errorKind).toBe('http_status');
    const down = await h.run('down');
    h.clock.advance(10);
    await h.tick();
    expect(await h.status(down)).toBe('failed');
    expect((await h.journal.get(down))!.errorKind).toBe('http_error');
    expect(await h.events(down, 'step.started')).toHaveLength(2);
  });

  it('an http_call sends Idempotency-Key <step_run_id>:<attempt>, a new one per attempt, and keeps redirects on its origin while it has secret headers', async () => {
    const h = new Harness(aWorkflow({ steps: [anHttpCall('quote', { headers: { Authorization: 'secret-key' } }), anHttpCall('notify')] }));
    h.http.on('https://api.example/quote', status(503), ok());
    const runId = await h.run('payouts');
    h.clock.advance(1000);
    await h.tick();
    expect(await h.status(runId)).toBe('succeeded');
    expect(h.http.requests.map((r) => [r.url, r.headers['Idempotency-Key'], r.redirects, r.maxBodyBytes])).toEqual([
      ['https://api.example/quote', `${runId}.quote:1`, 'same-origin', 1024 * 1024],
      ['https://api.example/quote', `${runId}.quote:2`, 'same-origin', 1024 * 1024],
      ['https://api.example/notify', `${runId}.notify:1`, 'follow', 1024 * 1024],
    ]);
  });

  it('a response past 1 MiB and a refused redirect fail the step http_error at once: the far end acted, another attempt would repeat it', async () => {
    const h = new Harness(aWorkflow({ name: 'big', steps: [anHttpCall('x')] }), aWorkflow({ name: 'away', steps: [anHttpCall('y', { headers: { 'X-Api-Key': 'k' } })] }));
    h.http.on('https://api.example/x', { status: 200, contentType: 'text/plain', body: 'z'.repeat(1024 * 1024 + 1) })
      .on('https://api.example/y', new HttpFailure('redirect_refused', 'HTTP 302 redirect to another origin (https://elsewhere.example) refused: the step sends secret headers'));
    const big = await h.run('big');
    expect(await h.status(big)).toBe('failed');
    expect((await h.events(big, 'step.finished'))[0]).toMatchObject({ status: 'failed', error: { kind: 'http_error', message: 'response too large' } });
    const away = await h.run('away');
    expect((await h.events(away, 'step.finished'))[0]).toMatchObject({ status: 'failed', error: { kind: 'http_error', message: expect.stringMatching(/^GET HTTP 302 redirect to another origin .*refused/) } });
    expect(await h.events(big, 'step.started')).toHaveLength(1);
    expect(await h.events(away, 'step.started')).toHaveLength(1);
  });

  it('an expression that fails at run time fails the step with expression_error, no retry', async () => {
    const h = new Harness(aWorkflow({ steps: [anHttpCall('x', { url: 'https://api.example/${{ trigger.payload.missing.deeper }}' })] }));
    const runId = await h.run('payouts');
    expect(await h.status(runId)).toBe('failed');
    expect((await h.journal.get(runId))!.errorKind).toBe('expression_error');
    expect(h.http.requests).toEqual([]);
  });

  it('a delay parks the run until due, then the run goes on', async () => {
    const h = new Harness(aWorkflow({ steps: [aDelay('cool', 60_000), anHttpCall('after')] }));
    const runId = await h.run('payouts');
    expect(await h.status(runId)).toBe('waiting');
    expect((await h.journal.get(runId))!).toMatchObject({ waitKind: 'delay', dueAt: T0 + 60_000 });
    h.clock.advance(59_999);
    await h.tick();
    expect(h.http.requests).toEqual([]);
    h.clock.advance(1);
    await h.tick();
    expect(await h.status(runId)).toBe('succeeded');
    expect(h.http.requests).toHaveLength(1);
  });

  it('an approval parks the run; approved it goes on, rejected it fails; decided twice is a conflict', async () => {
    const h = new Harness(aWorkflow({ steps: [anApproval('approve', { message: 'Pay ${{ trigger.payload.amount }}?' }), anHttpCall('pay')] }));
    const decide = new DecideApproval(h.journal, h.journal, h.clock);
    const yes = await h.run('payouts', { amount: 5 });
    const no = await h.run('payouts', { amount: 6 });
    expect((await h.events(yes, 'approval.requested'))[0]).toMatchObject({ approval_id: `${yes}.approve`, message: 'Pay 5?', expires_at: new Date(T0 + 3_600_000).toISOString() });
    expect(await h.status(yes)).toBe('waiting');
    await decide.execute({ approvalId: `${yes}.approve`, decision: 'approved', by: 'alice', reason: 'looks right' });
    await decide.execute({ approvalId: `${no}.approve`, decision: 'rejected', by: 'bob', reason: 'wrong address' });
    await expect(decide.execute({ approvalId: `${yes}.approve`, decision: 'rejected', by: 'eve' })).rejects.toThrow(ConflictError);
    await h.tick();
    expect(await h.status(yes)).toBe('succeeded');
    expect((await h.events(yes, 'step.finished'))[0]).toMatchObject({ status: 'succeeded', output: { decision: 'approved', by: 'alice', reason: 'looks right' } });
    expect(await h.status(no)).toBe('failed');
    expect((await h.journal.get(no))!.errorKind).toBe('approval_rejected');
    expect(h.http.requests).toHaveLength(1);
  });

  it('an approval\'s decision and its run\'s wake are one write: no moment has one without the other', async () => {
    const h = new Harness(aWorkflow({ steps: [anApproval('approve'), anHttpCall('pay')] }));
    const runId = await h.run('payouts');
    const writes: { types: string[]; options?: AppendOptions }[] = [];
    const recording: JournalWriter = {
      append: async (events, options) => {
        writes.push({ types: events.map((e) => e.type), options });
        return h.journal.append(events, options);
      },
      appendAll: (batches, onBatch) => h.journal.appendAll(batches, onBatch),
    };
    // The schedule is not the use case's to write: a wake of its own, after the decision, would be a second write.
    await new DecideApproval(h.journal, recording, h.clock).execute({ approvalId: `${runId}.approve`, decision: 'approved', by: 'alice' });
    expect(writes).toEqual([{ types: ['approval.decided'], options: { wake: { runId, at: h.clock.now() } } }]);
    expect((await h.tick()).map((c) => c.runId)).toEqual([runId]);
    expect(await h.status(runId)).toBe('succeeded');
  });

  it('an approval left undecided expires: the run fails approval_expired and a late decision is a conflict', async () => {
    const h = new Harness(aWorkflow({ steps: [anApproval('approve', { expiresMs: 60_000 })] }));
    const runId = await h.run('payouts');
    h.clock.advance(60_000);
    await h.tick();
    expect(await h.status(runId)).toBe('failed');
    expect((await h.journal.get(runId))!).toMatchObject({ errorKind: 'approval_expired', approvalStatus: 'expired' });
    await expect(new DecideApproval(h.journal, h.journal, h.clock).execute({ approvalId: `${runId}.approve`, decision: 'approved', by: 'late' }))
      .rejects.toThrow(ConflictError);
  });

  it('a step running when its process died runs again as its next attempt; twice in a row dead-letters the run', async () => {
    const h = new Harness(aWorkflow({ steps: [anHttpCall('a'), anHttpCall('b')] }));
    const { runId } = await h.start.execute({ workflow: 'payouts', trigger: { kind: 'manual', summary: 'manual' }, owner: { id: 'dead', leaseUntil: T0 + TTL } });
    // The dead process journaled the start of step a, and died.
    await h.journal.append([{ type: 'step.started', at: new Date(T0).toISOString(), run_id: runId, step_run_id: `${runId}.a`, step_id: 'a', step_type: 'http_call', attempt: 1 }]);
    expect(await h.tick()).toEqual([]);
    h.clock.advance(TTL + 1);
    const [claim] = await h.tick();
    expect(claim).toMatchObject({ expired: true });
    expect(await h.status(runId)).toBe('succeeded');
    expect((await h.events(runId, 'step.started')).map((e) => e.type === 'step.started' && `${e.step_id}#${e.attempt}`)).toEqual(['a#1', 'a#2', 'b#1']);

    // A poison step: its process dies each time it runs it.
    const poison = await h.start.execute({ workflow: 'payouts', trigger: { kind: 'manual', summary: 'manual' }, owner: { id: 'dead', leaseUntil: h.clock.now() + TTL } });
    const startA = (attempt: number): JournalEvent => ({ type: 'step.started', at: new Date(h.clock.now()).toISOString(), run_id: poison.runId, step_run_id: `${poison.runId}.a`, step_id: 'a', step_type: 'http_call', attempt });
    await h.journal.append([startA(1)]);
    h.clock.advance(TTL + 1);
    const [first] = await h.store.claimDue('dying', h.clock.now(), h.clock.now() + TTL, 1);
    // A second process takes it on, notes the crash (as DriveRun does), and dies itself in step a (attempt 2).
    await h.store.noteCrash(poison.runId, `${poison.runId}.a`, 1);
    expect(first).toMatchObject({ expired: true });
    await h.journal.append([startA(2)]);
    h.clock.advance(TTL + 1);
    const [second] = await h.tick();
    expect(second).toMatchObject({ expired: true, crashCount: 1 });
    expect(await h.status(poison.runId)).toBe('dead_lettered');
    expect((await h.journal.get(poison.runId))!.errorKind).toBe('engine_crash');
    expect((await h.events(poison.runId, 'step.started'))).toHaveLength(2);
  });

  it('a driver whose run the new holder ended meanwhile has its write refused as gone, and says so', async () => {
    const h = new Harness(aWorkflow({ steps: [anHttpCall('slow')] }));
    const { runId } = await h.start.execute({ workflow: 'payouts', trigger: { kind: 'manual', summary: 'manual' } });
    const [claimA] = await h.store.claimDue('engine-a', h.clock.now(), h.clock.now() + TTL, 1);
    h.http.on('https://api.example/slow', async () => {
      // Engine a stalls past its lease; engine b takes the run over and finishes it before a's call returns.
      h.clock.advance(TTL + 1);
      await h.tick('engine-b');
      return ok({ from: 'a' });
    }, ok({ from: 'b' }));
    let refusals = 0;
    expect(await h.drive.execute(claimA!, 'engine-a', () => false, () => refusals++)).toBe('gone');
    expect(refusals).toBe(1);
    expect(await h.status(runId)).toBe('succeeded');
    expect((await h.events(runId, 'step.finished')).map((e) => e.type === 'step.finished' && e.output)).toEqual([{ status: 200, body: { from: 'b' } }]);
    // Nothing of it is left to claim.
    expect(await h.store.claimDue('engine-a', h.clock.now(), h.clock.now() + TTL, 1)).toEqual([]);
  });

  it('a driver that lost its lease mid-step has its next write refused and drives nothing more; the new holder goes on', async () => {
    const h = new Harness(aWorkflow({ steps: [anHttpCall('slow'), aDelay('wait', 3_600_000), anHttpCall('notify')] }));
    const { runId } = await h.start.execute({ workflow: 'payouts', trigger: { kind: 'manual', summary: 'manual' } });
    const [claimA] = await h.store.claimDue('engine-a', h.clock.now(), h.clock.now() + TTL, 1);
    let takenOver: ClaimedRun[] = [];
    h.http.on('https://api.example/slow', async () => {
      // Engine a stalls in its call past its lease's TTL; engine b takes the run over and drives it to its delay.
      h.clock.advance(TTL + 1);
      takenOver = await h.tick('engine-b');
      return ok({ from: 'a' });
    }, ok({ from: 'b' }));
    expect(await h.drive.execute(claimA!, 'engine-a')).toBe('lost');
    expect(takenOver).toMatchObject([{ runId, expired: true }]);
    expect(takenOver[0]!.fence).toBeGreaterThan(claimA!.fence);
    // Only b's moves after the take-over: slow ran again as attempt 2 (at-least-once), then the delay parked the run.
    expect((await h.events(runId, 'step.started')).map((e) => e.type === 'step.started' && `${e.step_id}#${e.attempt}`)).toEqual(['slow#1', 'slow#2', 'wait#1']);
    expect((await h.events(runId, 'step.finished')).map((e) => e.type === 'step.finished' && e.output)).toEqual([{ status: 200, body: { from: 'b' } }]);
    expect(await h.events(runId, 'run.parked')).toHaveLength(1);
    expect(await h.status(runId)).toBe('waiting');
    expect(h.http.requests.map((r) => r.url)).toEqual(['https://api.example/slow', 'https://api.example/slow']);
    // a's release of the run it no longer holds changed nothing: the run is due when b parked it.
    h.clock.advance(3_600_000);
    await h.tick('engine-b');
    expect(await h.status(runId)).toBe('succeeded');
  });

  it('a journal write that meets a locked database is tried again with backoff: the drive goes on, the step runs once', async () => {
    const h = new Harness(aWorkflow({ steps: [anHttpCall('one')] }));
    // Appends 2 and 3 are the write after the call (its step.finished and the run's end): both fail, the third passes.
    const journal = new LockedAppends(h.journal, new Set([2, 3]));
    const drive = new DriveRun(journal, h.journal, h.store, h.catalog, new StepRunners(h.http, h.expressions, h.clock), h.expressions, h.clock);
    const { runId } = await h.start.execute({ workflow: 'payouts', trigger: { kind: 'manual', summary: 'manual' } });
    const [claim] = await h.store.claimDue(OWNER, h.clock.now(), h.clock.now() + TTL, 1);
    expect(await drive.execute(claim!, OWNER)).toBe('finished');
    expect(await h.status(runId)).toBe('succeeded');
    expect(h.http.requests).toHaveLength(1);
    expect((await h.events(runId, 'step.started')).map((e) => e.type === 'step.started' && e.attempt)).toEqual([1]);
  });

  it('a storage failure inside a step lets the run go, released: taken again, it is never counted as an engine crash', async () => {
    const h = new Harness(aWorkflow({ steps: [anHttpCall('one')] }));
    let failures = 2;
    class LockedInStep extends StepRunners {
      override prepare(step: StepDefinition, ctx: AttemptContext): PreparedAttempt {
        const prepared = super.prepare(step, ctx);
        return { ...prepared, run: async () => (failures-- > 0 ? Promise.reject(locked()) : prepared.run()) };
      }
    }
    h.drive = new DriveRun(h.journal, h.journal, h.store, h.catalog, new LockedInStep(h.http, h.expressions, h.clock), h.expressions, h.clock);
    const { runId } = await h.start.execute({ workflow: 'payouts', trigger: { kind: 'manual', summary: 'manual' } });
    const claims: ClaimedRun[] = [];
    for (let i = 0; i < 3; i++) {
      claims.push(...(await h.tick()));
      h.clock.advance(TTL + 1);
    }
    // Twice the step met the locked database, twice the run was let go (not left to an expired lease), and it went on.
    expect(claims.map((c) => c.expired)).toEqual([false, false, false]);
    expect(await h.status(runId)).toBe('succeeded');
    expect((await h.events(runId, 'step.started')).map((e) => e.type === 'step.started' && e.attempt)).toEqual([1, 2, 3]);
  });

  it('a run whose workflow or parked step left the config is dead-lettered with definition_changed', async () => {
    const h = new Harness(aWorkflow({ steps: [aDelay('wait', 1000), anHttpCall('after')] }), aWorkflow({ name: 'other', steps: [aDelay('wait', 1000)] }));
    const gone = await h.run('other');
    const changed = await h.run('payouts');
    h.reconfigure(aWorkflow({ steps: [anHttpCall('after')] }));
    h.clock.advance(1000);
    await h.tick();
    for (const runId of [gone, changed]) {
      expect(await h.status(runId)).toBe('dead_lettered');
      expect((await h.journal.get(runId))!.errorKind).toBe('definition_changed');
    }
  });

  it('a parked run goes on with the definition it started with when later steps were edited or added; secrets stay the config\'s', async () => {
    const started = aWorkflow({ steps: [aDelay('wait', 1000), anHttpCall('notify', { headers: { Authorization: 'key-v1' } })] });
    const h = new Harness(started);
    const runId = await h.run('payouts');
    // Restarted with an edited later step and one more step: the parked run is not theirs.
    h.reconfigure(aWorkflow({ steps: [aDelay('wait', 1000), anHttpCall('notify', { url: 'https://api.example/elsewhere', headers: { Authorization: 'key-v2' } }), anHttpCall('extra')] }));
    h.clock.advance(1000);
    await h.tick();
    expect(await h.status(runId)).toBe('succeeded');
    expect(h.http.requests.map((r) => [r.url, r.headers?.Authorization])).toEqual([['https://api.example/notify', 'key-v2']]);
    // A new run is the new definition's.
    const next = await h.run('payouts');
    h.clock.advance(1000);
    await h.tick();
    expect(await h.status(next)).toBe('succeeded');
    expect(h.http.requests.slice(1).map((r) => r.url)).toEqual(['https://api.example/elsewhere', 'https://api.example/extra']);
  });

  it('a pinned definition whose step still to run lost its secret header in the config dead-letters the run', async () => {
    const h = new Harness(aWorkflow({ steps: [aDelay('wait', 1000), anHttpCall('notify', { headers: { Authorization: 'key-v1' } })] }));
    const runId = await h.run('payouts');
    h.reconfigure(aWorkflow({ steps: [aDelay('wait', 1000), anHttpCall('notify')] }));
    h.clock.advance(1000);
    await h.tick();
    expect(await h.journal.get(runId)).toMatchObject({ status: 'dead_lettered', errorKind: 'definition_changed' });
    expect(h.http.requests).toEqual([]);
  });

  it('a cancelled run stops: its pending approval is closed and the engine drives it no further', async () => {
    const h = new Harness(aWorkflow({ steps: [anApproval('approve'), anHttpCall('pay')] }));
    const runId = await h.run('payouts');
    const cancel = new CancelRun(h.journal, h.journal, h.journal, h.store, h.clock);
    await cancel.execute(runId, 'carol');
    expect((await h.journal.get(runId))!).toMatchObject({ status: 'cancelled', errorKind: 'cancelled', approvalStatus: 'rejected' });
    await expect(cancel.execute(runId, 'carol')).rejects.toThrow(ConflictError);
    h.clock.advance(3_600_000);
    expect(await h.tick()).toEqual([]);
    expect(h.http.requests).toEqual([]);
  });

  it('a test session runs every step but those marked in_test: skip, and ends its session', async () => {
    const h = new Harness(aWorkflow({ steps: [anHttpCall('a'), anHttpCall('notify', { skipInTest: true })] }));
    const runId = await h.run('payouts', {}, 'test');
    const run = (await h.journal.get(runId))!;
    expect(run).toMatchObject({ status: 'succeeded', session: 'test', sessionId: `test-${runId}` });
    expect(h.http.requests.map((r) => r.url)).toEqual(['https://api.example/a']);
    const [session] = await h.journal.listSessions({ equals: {} }, { limit: 10 });
    expect(session).toMatchObject({ kind: 'test', runCount: 1 });
    expect(session!.finishedAt).not.toBeNull();
  });

  it('a paused workflow starts no live run; a delivery key starts one run only', async () => {
    const h = new Harness(aWorkflow({ paused: true, steps: [anHttpCall('a')] }), aWorkflow({ name: 'hook', steps: [anHttpCall('a')] }));
    await expect(h.start.execute({ workflow: 'payouts', trigger: { kind: 'manual', summary: 'm' } })).rejects.toThrow('workflow paused');
    const first = await h.start.execute({ workflow: 'hook', trigger: { kind: 'webhook', summary: 'POST' }, dedupeKeys: ['sig:1'] });
    const again = await h.start.execute({ workflow: 'hook', trigger: { kind: 'webhook', summary: 'POST' }, dedupeKeys: ['sig:1'] });
    expect(again).toEqual({ runId: first.runId, created: false, start: [] });
    expect(await h.journal.list({ workflow: 'hook' }, { limit: 10 })).toHaveLength(1);
  });
});
