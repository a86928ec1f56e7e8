/**
 * The engine loop's named jobs: each runs at start, then again `everyMs` after its run ends (never two runs of one
 * job at once); a failure is logged with the job's name and the job goes on; stop() re-arms nothing.
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
