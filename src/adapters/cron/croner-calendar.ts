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
      return describeCronError(err instanceof Error ? err.message : String(err));
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

/** Croner's reason in plain words, naming the field at fault but never quoting the schedule. */
function describeCronError(message: string): string {
  const field = /Invalid value for (\w+)/i.exec(message)?.[1];
  if (field) return `invalid value for ${field.replace(/([A-Z])/g, ' $1').toLowerCase()}`;
  const entry = /configuration entry (\d+)/i.exec(message)?.[1];
  if (entry) return `field ${Number(entry) + 1} has characters a cron field cannot hold`;
  return 'not a valid schedule';
}
