import { injectable } from 'inversify';
import type { Clock } from '../application/ports/clock';

@injectable()
export class SystemClock implements Clock {
  now(): number {
    return Date.now();
  }
}
