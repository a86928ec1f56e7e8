import type { Clock } from '../../src/application/ports/clock';

/** A clock that stands still until told to move. */
export class FixedClock implements Clock {
  constructor(private current: number) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}
