import { describe, expect, it } from 'vitest';
import { Backoff } from './backoff.js';

describe('Backoff', () => {
  it('doubles from 800 ms to a 30 s cap (no jitter)', () => {
    let now = 0;
    const b = new Backoff({ jitter: 0, now: () => now });
    const delays = Array.from({ length: 9 }, () => {
      now += 1_000;
      return b.next();
    });
    expect(delays).toEqual([800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000]);
  });

  it('jitters within ±jitter of the base delay', () => {
    expect(new Backoff({ jitter: 0.2, random: () => 0 }).next()).toBe(640);
    expect(new Backoff({ jitter: 0.2, random: () => 0.999999 }).next()).toBe(960);
  });

  it('starts over after a healthy period, and on reset()', () => {
    let now = 0;
    const b = new Backoff({ jitter: 0, now: () => now, resetAfterMs: 120_000 });
    b.next();
    b.next();
    now += 119_000;
    expect(b.next()).toBe(3200);
    now += 120_000;
    expect(b.next()).toBe(800);
    b.next();
    b.reset();
    expect(b.next()).toBe(800);
  });

  it('rejects nonsense settings', () => {
    expect(() => new Backoff({ initialMs: 10, maxMs: 5 })).toThrow(RangeError);
    expect(() => new Backoff({ jitter: 1 })).toThrow(RangeError);
    expect(() => new Backoff({ factor: 0.5 })).toThrow(RangeError);
  });
});
