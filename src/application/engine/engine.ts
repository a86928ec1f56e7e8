import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { inject, injectable, optional } from 'inversify';
import { toIso } from '../../domain/time';
import { ChainflowConfig, DEFAULT_ENGINE_CONFIG, type EngineConfig } from '../config';
import { Clock } from '../ports/clock';
import { CronCalendar } from '../ports/cron-calendar';
import { EngineMetrics, NO_ENGINE_METRICS } from '../ports/engine-metrics';
import { EngineStore, FIRST_FENCE, type ClaimedRun } from '../ports/engine-store';
import { Logger } from '../ports/logger';
import { WorkflowStates } from '../ports/workflow-states';
import { SettlePendingReceipts } from '../spend/settle-pending-receipts.use-case';
import { WatchSends } from '../sends/watch-sends.use-case';
import { DeliverNotifications } from '../notifications/deliver-notifications.use-case';
import { NotifyLowBalances } from '../notifications/notify-low-balances.use-case';
import { Redactor } from '../../domain/redactor';
import { DriveRun } from './drive-run.use-case';
import { StartRun, type StartedRun, type StartRunRequest } from './start-run.use-case';
import { WorkflowCatalog } from '../workflow-catalog';
import { EngineJobs, type EngineJob } from './engine-jobs';
import { PollEventLogs } from './poll-event-logs.use-case';
import { WatchEventWaits } from './watch-event-waits.use-case';

/** How often the spend ledger's owed receipt reads are retried. */
const RECEIPT_DRAIN_MS = 5_000;
/**
 * How long a webhook delivery (its signature, its Idempotency-Key) and a cron tick are remembered: a repeat within
 * this starts no second run. A day, as Stripe keeps idempotency keys; a signature older than 300 s is refused anyway.
 */
export const DELIVERY_MEMORY_MS = 24 * 60 * 60 * 1000;
const FORGET_EVERY_MS = 60 * 60 * 1000;
/** How long a stopping engine waits for the runs it drives to park or end. */
export const STOP_GRACE_MS = 10_000;
/** How often sends nobody waits for (wait_for none/submitted, cancelled runs) are looked at. */
const SEND_WATCH_MS = 1_000;
/** How often the notifications outbox is looked at for retries that came due (a new row pokes it at once). */
const NOTIFY_DRAIN_MS = 1_000;
/**
 * How long after another process's lease ends the engine looks for it: a lease is taken once the database's clock
 * is past its end, and the end as read is a round trip old.
 */
const LEASE_END_SLACK_MS = 25;
/** How often relayer balances are compared with their `low_balance` for notifications (reads are cached 15 s). */
const LOW_BALANCE_CHECK_MS = 60_000;

/**
 * The engine's one loop (CONTRACT 8): claims due runs and drives them (bounded concurrency), fires cron ticks,
 * renews the leases it holds, and runs its named background jobs (the receipts the spend ledger is owed, sends
 * nobody waits for, notifications, relayer balances, the event trigger's log poller). Started by `chainflow start` and
 * `chainflow worker`; several processes may run it on one database (leases decide who drives what).
 */
@injectable()
export class Engine {
  /** This process's lease owner id. */
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly settings: EngineConfig;
  private readonly driving = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  /** The background work beside claiming and driving runs, each a named job (see `jobs()`). */
  private readonly background = new EngineJobs((message, err) => this.warn(message, err));
  private running = false;
  /** stop() was called: runs being driven are let go between step attempts. */
  private stopping = false;
  /** Slots promised to runs being submitted here (between their enqueue and their drive). */
  private reserved = 0;
  /** The last claim took as many runs as there was room for: more may be due, so a freed slot looks at once. */
  private backlog = false;
  private ticking: Promise<void> | undefined;
  private again = false;
  /** When the last tick wants the next one (ms from its end): the poll interval, or sooner when a lease ends sooner. */
  private nextTickMs: number | undefined;
  /** Cron workflows whose stored next tick this start of the engine has checked against the configured schedule. */
  private readonly cronSynced = new Set<string>();

  constructor(
    @inject(ChainflowConfig) config: ChainflowConfig,
    @inject(EngineStore) private readonly store: EngineStore,
    @inject(DriveRun) private readonly driveRun: DriveRun,
    @inject(StartRun) private readonly startRun: StartRun,
    @inject(WorkflowCatalog) private readonly catalog: WorkflowCatalog,
    @inject(WorkflowStates) private readonly states: WorkflowStates,
    @inject(CronCalendar) private readonly cron: CronCalendar,
    @inject(SettlePendingReceipts) private readonly receipts: SettlePendingReceipts,
    @inject(Clock) private readonly clock: Clock,
    @inject(Logger) private readonly logger: Logger,
    @inject(Redactor) private readonly redactor: Redactor,
    @inject(WatchSends) @optional() private readonly sends?: WatchSends,
    @inject(DeliverNotifications) @optional() private readonly notices?: DeliverNotifications,
    @inject(NotifyLowBalances) @optional() private readonly lowBalances?: NotifyLowBalances,
    @inject(PollEventLogs) @optional() private readonly eventLogs?: PollEventLogs,
    @inject(WatchEventWaits) @optional() private readonly eventWaits?: WatchEventWaits,
    @inject(EngineMetrics) @optional() private readonly metrics: EngineMetrics = NO_ENGINE_METRICS,
  ) {
    this.settings = config.engine ?? DEFAULT_ENGINE_CONFIG;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopping = false;
    this.cronSynced.clear();
    this.poke();
    this.renewTimer = setInterval(() => void this.renew(), Math.max(200, Math.floor(this.settings.leaseTtlMs / 3)));
    this.renewTimer.unref();
    this.notices?.start(this.owner);
    this.background.start(this.jobs());
  }

  /** The engine's named background jobs and how often each runs. */
  private jobs(): EngineJob[] {
    const jobs: EngineJob[] = [
      { name: 'receipt drain', everyMs: RECEIPT_DRAIN_MS, run: () => this.receipts.drain() },
      { name: 'forget deliveries', everyMs: FORGET_EVERY_MS, run: async () => void (await this.store.forgetDeliveries(this.clock.now() - DELIVERY_MEMORY_MS)) },
      { name: 'send watch', everyMs: SEND_WATCH_MS, run: () => this.sends?.drain(this.owner) },
      { name: 'notifications', everyMs: NOTIFY_DRAIN_MS, run: () => this.notices?.poke() },
      { name: 'low balances', everyMs: LOW_BALANCE_CHECK_MS, run: () => this.lowBalances?.execute() },
    ];
    if (this.eventLogs?.watching()) {
      const logs = this.eventLogs;
      jobs.push({ name: 'event logs', everyMs: logs.everyMs(), pauseMs: () => logs.nextInMs(), run: () => logs.execute(() => this.poke()) });
    }
    if (this.eventWaits?.watching()) {
      jobs.push({ name: 'event waits', everyMs: this.eventWaits.everyMs(), run: async () => {
        await this.eventWaits!.execute();
        // A matched wait woke its run: look for due runs now rather than at the next poll.
        this.poke();
      } });
    }
    return jobs;
  }

  /**
   * Stops claiming and firing cron; waits (at most `graceMs`) for the runs being driven to park or end, which
   * releases their leases, so that another process (or this one restarted) takes them on at once.
   */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    this.running = false;
    this.stopping = true;
    clearTimeout(this.timer);
    clearInterval(this.renewTimer);
    this.background.stop();
    await this.ticking;
    // A run still driven past the grace keeps its lease until it runs out; another process then takes it on.
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    // The reorg responses being answered too (their on_reorg steps): what is cut off is answered at the next start.
    await Promise.race([Promise.allSettled([...this.driving.values(), this.eventLogs?.answered()]), grace]);
    clearTimeout(timer);
    // After the runs: what they noted on their way out is still attempted (bounded by each attempt's timeout).
    await this.notices?.stop();
  }

  /** Look for due work now (a run was started or woken in this process). */
  poke(): void {
    if (!this.running) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.ticking = this.tick()
      .catch((err: unknown) => this.warn('engine tick failed', err))
      .finally(() => {
        this.ticking = undefined;
        if (!this.running) return;
        if (this.again) {
          this.again = false;
          this.poke();
        } else {
          this.timer = setTimeout(() => this.poke(), this.nextTickMs ?? this.settings.pollMs);
          this.timer.unref();
        }
      });
  }

  /**
   * Starts a run (a webhook, the API, a cron tick). While this engine runs and has room, it takes the run at once
   * and drives it in the background (no claim through storage, the start journaled with the run's first moves);
   * otherwise the run is journaled and left in the schedule for whichever engine claims it. Resolves once the run
   * is recorded durably.
   */
  async submit(request: StartRunRequest): Promise<StartedRun> {
    if (!this.running || this.driving.size + this.reserved >= this.settings.concurrency) {
      const started = await this.startRun.execute({ ...request, journalStart: true });
      if (started.created) this.poke();
      return started;
    }
    this.reserved++;
    let started: StartedRun;
    try {
      started = await this.startRun.execute({ ...request, owner: this.lease(), journalStart: false });
    } finally {
      this.reserved--;
    }
    if (!started.created) return started;
    if (this.running) {
      void this.drive(this.freshClaim(request.workflow, started)).then(() => this.roomFreed());
    } else {
      // Stopped meanwhile: the run is let go at once for whichever engine comes next (its start is journaled by it).
      await this.store.release(this.owner, started.runId, this.clock.now());
    }
    return started;
  }

  /**
   * Starts a run and drives it in this process until it ends or parks (`chainflow run` / `chainflow test`); the
   * lease is renewed meanwhile. A repeated delivery drives nothing. Resolves with the run id.
   */
  async runHere(request: StartRunRequest): Promise<string> {
    const started = await this.startRun.execute({ ...request, owner: this.lease(), journalStart: false });
    if (!started.created) return started.runId;
    const renewal = setInterval(() => void this.renew(), Math.max(200, Math.floor(this.settings.leaseTtlMs / 3)));
    try {
      await this.drive(this.freshClaim(request.workflow, started));
    } finally {
      clearInterval(renewal);
    }
    // What the run noted is attempted before the command returns (no engine may be running); a refusal is left
    // in the outbox for the next engine's retry.
    await this.notices?.drain(this.owner).catch((err: unknown) => this.warn('notifications: outbox drain failed', err));
    return started.runId;
  }

  private lease(): { id: string; leaseUntil: number } {
    return { id: this.owner, leaseUntil: this.clock.now() + this.settings.leaseTtlMs };
  }

  private freshClaim(workflow: string, started: StartedRun): ClaimedRun {
    return { runId: started.runId, workflow, start: started.start, expired: false, crashStepRunId: null, crashCount: 0, fence: FIRST_FENCE, fresh: true };
  }

  /** Drives a run this process holds (its own start); resolves when the run ended or parked. */
  async drive(claim: ClaimedRun): Promise<void> {
    const refusedGone = (): void =>
      this.logger.warn('lease lost: the run left the schedule meanwhile (ended elsewhere, or cancelled); this process\'s write was refused', { run_id: claim.runId, workflow: claim.workflow });
    const work = this.driveRun.execute(claim, this.owner, () => this.stopping, refusedGone).then(
      (outcome) => {
        this.metrics.runDriven(claim.workflow, outcome);
        if (outcome !== 'lost') return;
        this.metrics.leaseLost(claim.workflow);
        this.logger.warn('lease lost: the run is left to its new holder', { run_id: claim.runId, workflow: claim.workflow });
      },
      (err: unknown) => this.warn(`run ${claim.runId}: drive failed`, err),
    );
    this.driving.set(claim.runId, work);
    this.metrics.leasesHeld(this.driving.size);
    try {
      await work;
    } finally {
      this.driving.delete(claim.runId);
      this.metrics.leasesHeld(this.driving.size);
    }
  }

  private async tick(): Promise<void> {
    this.nextTickMs = undefined;
    await this.fireCron();
    const room = this.settings.concurrency - this.driving.size;
    if (room <= 0) {
      this.backlog = true;
      return;
    }
    this.backlog = false;
    const now = this.clock.now();
    const asked = performance.now();
    const claims = await this.store.claimDue(this.owner, now, now + this.settings.leaseTtlMs, room);
    this.metrics.claimed((performance.now() - asked) / 1000, claims.length);
    for (const claim of claims) {
      void this.drive(claim).then(() => this.roomFreed());
    }
    if (claims.length === room) {
      this.again = true;
      this.backlog = true;
      return;
    }
    // Room to spare: look again when another process's lease runs out, if before the next poll (a dead process's
    // runs are then taken over at its lease's end, not up to a poll later; CONTRACT 10). Not once stopping: the
    // storage may be closing right behind the stop, and a read then would wait for a connection that never comes.
    if (!this.running) return;
    const end = await this.store.nextLeaseEnd(this.owner, this.clock.now());
    const left = end === undefined ? Infinity : end - this.clock.now();
    this.nextTickMs = left > 0 && left < this.settings.pollMs ? Math.ceil(left) + LEASE_END_SLACK_MS : undefined;
  }

  /**
   * Fires each due cron tick once across every engine process: the tick's move and its run are one write, which
   * the store's compare-and-set lets through for one process only (CONTRACT 8.7).
   */
  private async fireCron(): Promise<void> {
    const now = this.clock.now();
    for (const w of this.catalog.all()) {
      if (w.trigger.kind !== 'cron') continue;
      const schedule = w.trigger.schedule;
      const due = await this.store.cronNext(w.name);
      if (due === undefined) {
        const next = this.cron.next(schedule, now);
        if (next !== undefined) await this.store.advanceCron(w.name, undefined, next);
        this.cronSynced.add(w.name);
        continue;
      }
      if (due > now) {
        await this.syncCron(w.name, schedule, due, now);
        continue;
      }
      this.cronSynced.add(w.name);
      // Missed ticks (the engine was down) fire once, then the schedule goes on from now.
      const next = this.cron.next(schedule, now) ?? Number.MAX_SAFE_INTEGER;
      if ((await this.states.paused(w.name)) ?? w.paused) {
        await this.store.advanceCron(w.name, due, next);
        continue;
      }
      await this.submit({
        workflow: w.name, trigger: { kind: 'cron', summary: `cron ${schedule}`, payload: { scheduled_at: toIso(due) } },
        dedupeKeys: [`cron:${w.name}:${due}`], cronTick: { expected: due, next },
      }).catch((err: unknown) => this.warn(`workflow ${w.name}: cron tick not started`, err));
    }
  }

  /**
   * The schedule in the config is the schedule: the first time this start of the engine sees a workflow's stored
   * next tick, it is recomputed from the configured schedule (a changed `schedule` takes effect now, not after the
   * tick the old one left). An unchanged schedule gives the same tick, and nothing is written.
   */
  private async syncCron(workflow: string, schedule: string, due: number, now: number): Promise<void> {
    if (this.cronSynced.has(workflow)) return;
    const next = this.cron.next(schedule, now);
    if (next !== undefined && next !== due && !(await this.store.advanceCron(workflow, due, next))) return;
    this.cronSynced.add(workflow);
  }

  /** A drive ended: look for due runs now if some were left waiting for room, else at the next poll. */
  private roomFreed(): void {
    if (this.backlog) this.poke();
  }

  private async renew(): Promise<void> {
    if (this.driving.size === 0) return;
    try {
      const now = this.clock.now();
      await this.store.renew(this.owner, [...this.driving.keys()], now, now + this.settings.leaseTtlMs);
    } catch (err) {
      this.warn('lease renewal failed', err);
    }
  }

  private warn(message: string, err: unknown): void {
    this.logger.warn(message, { err: this.redactor.redactText(err instanceof Error ? err.message : String(err)) });
  }
}
