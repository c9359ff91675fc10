import { Clock } from '../../src/application/ports/clock.port';

export class FixedClock implements Clock {
  constructor(private current = new Date('2026-06-01T12:00:00.000Z')) {}

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}
