import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { newRequestQueue, requestRateLimiter } from './request-queue.js';

describe('newRequestQueue', () => {
  it('deduplicates by cluster, namespace and name, and groups by cluster', async () => {
    const q = newRequestQueue({ name: 'ctrl' });
    q.add({ clusterName: 'a', namespace: 'ns', name: 'x' });
    q.add({ name: 'x', namespace: 'ns', clusterName: 'a' });
    q.add({ clusterName: 'b', namespace: 'ns', name: 'x' });
    q.add({ clusterName: 'a', namespace: 'ns\u0000', name: 'x' });
    expect(q.len()).toBe(3);
    expect(q.lenOf('a')).toBe(2);
    q.dropGroup('a');
    expect(await q.get()).toEqual({ clusterName: 'b', namespace: 'ns', name: 'x' });
    expect(q.len()).toBe(0);
    q.shutDown();
  });

  it('counts failures per request, so one request’s backoff does not slow another', () => {
    const q = newRequestQueue({ name: 'ctrl' });
    const r1 = { clusterName: 'a', namespace: 'ns', name: 'x' };
    q.addRateLimited(r1);
    q.addRateLimited({ ...r1 });
    expect(q.numRequeues(r1)).toBe(2);
    expect(q.numRequeues({ ...r1, clusterName: 'b' })).toBe(0);
    q.shutDown();
  });
});

describe('requestRateLimiter (the request queue default)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('keeps one cluster’s retry storm from delaying another cluster’s first retry', async () => {
    const q = newRequestQueue({ name: 'ctrl' });
    for (let i = 0; i < 1000; i++) q.addRateLimited({ clusterName: 'noisy', namespace: 'ns', name: `o${i}` });
    const quiet = { clusterName: 'quiet', namespace: 'ns', name: 'one' };
    q.addRateLimited(quiet);
    await vi.advanceTimersByTimeAsync(5);
    expect(q.lenOf('quiet')).toBe(1);
    // The noisy cluster spends its own bucket: its 1000th retry waits ~90 s (900 past the burst at 10 qps).
    expect(q.lenOf('noisy')).toBe(100);
    await vi.advanceTimersByTimeAsync(89_000);
    expect(q.lenOf('noisy')).toBeLessThan(1000);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(q.lenOf('noisy')).toBe(1000);
    q.shutDown();
  });

  it('forgets a dropped cluster’s bucket, so a re-engaged cluster starts with a full one', async () => {
    const q = newRequestQueue({ name: 'ctrl' });
    for (let i = 0; i < 150; i++) q.addRateLimited({ clusterName: 'c', namespace: 'ns', name: `o${i}` });
    q.dropGroup('c');
    expect(q.delayedLen()).toBe(0);
    q.addRateLimited({ clusterName: 'c', namespace: 'ns', name: 'again' });
    await vi.advanceTimersByTimeAsync(5);
    expect(q.lenOf('c')).toBe(1);
    q.shutDown();
  });

  it('behaves as client-go’s default within one cluster', () => {
    const rl = requestRateLimiter();
    const r = { clusterName: 'c', namespace: 'ns', name: 'x' };
    expect([rl.when(r), rl.when(r), rl.when(r)]).toEqual([5, 10, 20]);
    for (let i = 0; i < 97; i++) rl.when({ ...r, name: `o${i}` });
    expect(rl.when({ ...r, name: 'fresh' })).toBeCloseTo(100);
    expect(rl.when({ ...r, clusterName: 'other', name: 'fresh' })).toBe(5);
  });
});
