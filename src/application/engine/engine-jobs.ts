/**
 * A piece of the engine's background work, run now and again every `everyMs` after each run ends (never two at once),
 * or when `pauseMs` says, for a job that keeps its own schedule.
 */
export interface EngineJob {
  /** Names the job in the warning its failure logs (`engine job 'event logs' failed`). */
  readonly name: string;
  /** Pause between the end of one run and the start of the next, in ms. */
  readonly everyMs: number;
  /**
   * Asked after each run, instead of `everyMs`: the pause before the next. A job whose period is a promise (the log
   * poller's `poll_interval`, from one poll's start to the next) answers what is left of it after the run's work.
   */
  pauseMs?(): number;
  run(): unknown;
}

/**
 * The engine loop's named jobs (receipt drain, send watch, the log poller…): one timer each, re-armed when a run
 * ends, so a slow run (a provider timing out) never overlaps the next; a failure is logged and the job runs again
 * at its next turn. Adding background work is adding a job, not another timer field.
 */
export class EngineJobs {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Each start() begins a generation: a run that ends after a stop (and a new start) re-arms nothing. */
  private generation = 0;
  private active = false;

  constructor(private readonly warn: (message: string, err: unknown) => void) {}

  start(jobs: readonly EngineJob[]): void {
    this.active = true;
    const generation = ++this.generation;
    for (const job of jobs) this.turn(job, generation);
  }

  /** Stops re-arming. A run under way is not waited for: each job's writes are whole transactions of their own. */
  stop(): void {
    this.active = false;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private turn(job: EngineJob, generation: number): void {
    if (!this.active || generation !== this.generation) return;
    void (async () => job.run())()
      .catch((err: unknown) => this.warn(`engine job '${job.name}' failed`, err))
      .finally(() => {
        if (!this.active || generation !== this.generation) return;
        const timer = setTimeout(() => this.turn(job, generation), job.pauseMs ? Math.max(0, job.pauseMs()) : job.everyMs);
        timer.unref();
        this.timers.set(job.name, timer);
      });
  }
}
