/**
 * The engine loop's named jobs: each runs at start, then again `everyMs` after its run ends, or after the pause a job
 * with its own schedule asks for (never two runs of one job at once); a failure is logged with the job's name and the
 * job goes on; stop() re-arms nothing.
 */
import { EngineJobs } from '../../src/application/engine/engine-jobs';

describe('EngineJobs', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** Lets the promise callbacks of the runs that ended settle. */
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };

  it('runs each job at start and again after its pause, one run at a time, and stops re-arming at stop()', async () => {
    const warnings: string[] = [];
    const jobs = new EngineJobs((message) => warnings.push(message));
    let runs = 0;
    let running = 0;
    let most = 0;
    let finish: () => void = () => undefined;
    jobs.start([{
      name: 'slow', everyMs: 100, run: () => {
        runs++;
        running++;
        most = Math.max(most, running);
        return new Promise<void>((done) => {
          finish = () => {
            running--;
            done();
          };
        });
      },
    }]);
    expect(runs).toBe(1);
    // Its run has not ended: however long, no second run starts.
    jest.advanceTimersByTime(1000);
    expect(runs).toBe(1);
    finish();
    await settle();
    jest.advanceTimersByTime(99);
    expect(runs).toBe(1);
    jest.advanceTimersByTime(1);
    expect(runs).toBe(2);
    expect(most).toBe(1);
    jobs.stop();
    finish();
    await settle();
    jest.advanceTimersByTime(1000);
    expect(runs).toBe(2);
    expect(warnings).toEqual([]);
  });

  it('asks a job that keeps its own schedule for its pause after each run', async () => {
    const jobs = new EngineJobs(() => undefined);
    const pauses = [30, 0, 500];
    let runs = 0;
    jobs.start([{ name: 'event logs', everyMs: 1000, pauseMs: () => pauses.shift() ?? 1000, run: async () => void runs++ }]);
    await settle();
    jest.advanceTimersByTime(29);
    expect(runs).toBe(1);
    jest.advanceTimersByTime(1);
    await settle();
    // A pause of 0: the next run at once (still after the run before it ended).
    jest.advanceTimersByTime(0);
    await settle();
    expect(runs).toBe(3);
    jest.advanceTimersByTime(499);
    expect(runs).toBe(3);
    jest.advanceTimersByTime(1);
    expect(runs).toBe(4);
    jobs.stop();
  });

  it('logs a failed run with the job\'s name and runs the job again at its next turn', async () => {
    const warnings: string[] = [];
    const jobs = new EngineJobs((message, err) => warnings.push(`${message}: ${(err as Error).message}`));
    let runs = 0;
    jobs.start([{ name: 'event logs', everyMs: 50, run: async () => {
      runs++;
      throw new Error('provider down');
    } }]);
    await settle();
    jest.advanceTimersByTime(50);
    await settle();
    expect(runs).toBe(2);
    expect(warnings).toEqual(["engine job 'event logs' failed: provider down", "engine job 'event logs' failed: provider down"]);
    jobs.stop();
  });
});
