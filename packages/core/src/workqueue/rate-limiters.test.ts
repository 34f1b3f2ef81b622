import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BucketRateLimiter } from './bucket-rate-limiter.js';
import { defaultControllerRateLimiter } from './default-controller-rate-limiter.js';
import { WorkQueueOptionsError } from './errors.js';
import { ExponentialFailureRateLimiter } from './exponential-failure-rate-limiter.js';
import { FastSlowRateLimiter } from './fast-slow-rate-limiter.js';
import { MaxOfRateLimiter } from './max-of-rate-limiter.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('ExponentialFailureRateLimiter', () => {
  it('doubles from 5 ms per failure and caps at 1000 s', () => {
    const rl = new ExponentialFailureRateLimiter<string>();
    const delays = Array.from({ length: 20 }, () => rl.when('a'));
    expect(delays.slice(0, 5)).toEqual([5, 10, 20, 40, 80]);
    expect(delays[17]).toBe(655_360);
    expect(delays[18]).toBe(1_000_000);
    expect(delays[19]).toBe(1_000_000);
    expect(rl.numRequeues('a')).toBe(20);
  });

  it('stays at the cap, never NaN or Infinity, after thousands of failures', () => {
    const rl = new ExponentialFailureRateLimiter<string>({ baseDelayMs: 1, maxDelayMs: 60_000 });
    let last = 0;
    for (let i = 0; i < 5000; i++) last = rl.when('a');
    expect(last).toBe(60_000);
    const zero = new ExponentialFailureRateLimiter<string>({ baseDelayMs: 0 });
    for (let i = 0; i < 2000; i++) last = zero.when('a');
    expect(last).toBe(0);
  });

  it('counts items separately and forgets one without touching others', () => {
    const rl = new ExponentialFailureRateLimiter<string>();
    rl.when('a');
    rl.when('a');
    rl.when('b');
    rl.forget('a');
    expect(rl.numRequeues('a')).toBe(0);
    expect(rl.numRequeues('b')).toBe(1);
    expect(rl.when('a')).toBe(5);
    expect(rl.when('b')).toBe(10);
  });

  it('identifies equal plain objects regardless of property order by default', () => {
    const rl = new ExponentialFailureRateLimiter<object>();
    rl.when({ cluster: 'x', name: 'n' });
    expect(rl.when({ name: 'n', cluster: 'x' })).toBe(10);
    expect(rl.numRequeues({ cluster: 'y', name: 'n' })).toBe(0);
  });

  it('uses a given key function', () => {
    const rl = new ExponentialFailureRateLimiter<{ id: string; at: number }>({ key: (i) => i.id });
    rl.when({ id: 'a', at: 1 });
    expect(rl.when({ id: 'a', at: 2 })).toBe(10);
  });
});

describe('BucketRateLimiter', () => {
  it('lets a burst through, then spaces retries at 1/qps, and refills with time', () => {
    const rl = new BucketRateLimiter({ qps: 10, burst: 3 });
    expect([rl.when(1), rl.when(2), rl.when(3)]).toEqual([0, 0, 0]);
    expect(rl.when(4)).toBeCloseTo(100);
    expect(rl.when(5)).toBeCloseTo(200);
    vi.advanceTimersByTime(1000);
    // 10 tokens accrued, minus the 2 reserved ahead, capped at the burst of 3.
    expect([rl.when(6), rl.when(7), rl.when(8)]).toEqual([0, 0, 0]);
    expect(rl.when(9)).toBeCloseTo(100);
    expect(rl.numRequeues(9)).toBe(0);
  });

  it('defaults to 10 qps with a burst of 100', () => {
    const rl = new BucketRateLimiter();
    for (let i = 0; i < 100; i++) expect(rl.when(i)).toBe(0);
    expect(rl.when(100)).toBeCloseTo(100);
  });
});

describe('MaxOfRateLimiter and defaultControllerRateLimiter', () => {
  it('takes the longest delay and records the failure in every limiter', () => {
    const exp = new ExponentialFailureRateLimiter<string>({ baseDelayMs: 1 });
    const slow = new FastSlowRateLimiter<string>({ fastDelayMs: 3, slowDelayMs: 50, maxFastAttempts: 1 });
    const rl = new MaxOfRateLimiter(exp, slow);
    expect([rl.when('a'), rl.when('a'), rl.when('a')]).toEqual([3, 50, 50]);
    expect(exp.numRequeues('a')).toBe(3);
    expect(rl.numRequeues('a')).toBe(3);
    rl.forget('a');
    expect(exp.numRequeues('a')).toBe(0);
    expect(slow.numRequeues('a')).toBe(0);
  });

  it('the default combines 5 ms exponential backoff with the 10 qps / 100 bucket', () => {
    const rl = defaultControllerRateLimiter<string>();
    expect(rl.when('a')).toBe(5);
    expect(rl.when('a')).toBe(10);
    for (let i = 0; i < 98; i++) rl.when(`other-${i}`);
    // The bucket is now empty: a first failure waits for the next token rather than 5 ms.
    expect(rl.when('fresh')).toBeCloseTo(100);
  });
});

describe('FastSlowRateLimiter', () => {
  it('retries fast for maxFastAttempts, then slow, until forgotten', () => {
    const rl = new FastSlowRateLimiter<string>({ fastDelayMs: 10, slowDelayMs: 1000, maxFastAttempts: 2 });
    expect([rl.when('a'), rl.when('a'), rl.when('a'), rl.when('b')]).toEqual([10, 10, 1000, 10]);
    rl.forget('a');
    expect(rl.when('a')).toBe(10);
  });
});

describe('rate limiter options', () => {
  it.each([
    ['negative base', () => new ExponentialFailureRateLimiter({ baseDelayMs: -1 }), 'baseDelayMs'],
    ['NaN cap', () => new ExponentialFailureRateLimiter({ maxDelayMs: Number.NaN }), 'maxDelayMs'],
    ['zero qps', () => new BucketRateLimiter({ qps: 0 }), 'qps'],
    ['fractional burst', () => new BucketRateLimiter({ burst: 1.5 }), 'burst'],
    ['no limiters', () => new MaxOfRateLimiter(), 'limiters'],
    ['negative attempts', () => new FastSlowRateLimiter({ fastDelayMs: 1, slowDelayMs: 2, maxFastAttempts: -1 }), 'maxFastAttempts'],
  ])('rejects %s with a clear error', (_name, build, option) => {
    expect(build).toThrow(WorkQueueOptionsError);
    expect(build).toThrow(`invalid work queue option ${option}`);
  });
});
