/**
 * Fakes only Date (new Date(), Date.now()) with jest's modern fake timers;
 * setTimeout, promises, nextTick and the rest stay real, so code that awaits
 * I/O-like fakes is unaffected. Move the clock with jest.setSystemTime or
 * laterDate(); undo with jest.useRealTimers().
 */
export function fakeDateOnly(now = Date.parse('2026-01-01T00:00:00Z')): void {
  jest.useFakeTimers({
    now,
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'requestAnimationFrame',
      'cancelAnimationFrame',
      'requestIdleCallback',
      'cancelIdleCallback',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
}

/** Moves the faked Date forward by `ms` (default 1): what follows is "later". */
export function laterDate(ms = 1): void {
  jest.setSystemTime(Date.now() + ms);
}
