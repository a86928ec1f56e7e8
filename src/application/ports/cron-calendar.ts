/** Cron schedules (5 fields, or 6 with seconds first), in UTC. */
export interface CronCalendar {
  /** Why `schedule` is not a usable cron schedule, or undefined. */
  check(schedule: string): string | undefined;
  /** The first tick strictly after `afterMs` (epoch ms), or undefined when the schedule never fires again. */
  next(schedule: string, afterMs: number): number | undefined;
}
export const CronCalendar = Symbol('CronCalendar');
