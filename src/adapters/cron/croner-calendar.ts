import { Cron } from 'croner';
import type { CronCalendar } from '../../application/ports/cron-calendar';

/** Cron schedules through croner, in UTC: 5 fields, or 6 with seconds first (CONTRACT 8.1). */
export class CronerCalendar implements CronCalendar {
  private readonly cache = new Map<string, Cron>();

  check(schedule: string): string | undefined {
    const fields = schedule.trim().split(/\s+/).length;
    if (fields !== 5 && fields !== 6) return `must have 5 fields (or 6 with seconds first), not ${fields}`;
    try {
      this.cron(schedule);
      return undefined;
    } catch (err) {
      return (err instanceof Error ? err.message : String(err)).split('\n')[0];
    }
  }

  next(schedule: string, afterMs: number): number | undefined {
    const next = this.cron(schedule).nextRun(new Date(afterMs));
    return next ? next.getTime() : undefined;
  }

  private cron(schedule: string): Cron {
    let cron = this.cache.get(schedule);
    if (!cron) {
      cron = new Cron(schedule, { timezone: 'Etc/UTC', paused: true });
      this.cache.set(schedule, cron);
    }
    return cron;
  }
}
