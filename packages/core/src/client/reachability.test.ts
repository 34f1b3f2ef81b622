/** Reachability: waiters wake on the first answer; one probe loop serves every waiter; nothing runs once nobody waits. */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { Reachability } from './reachability.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

it('wakes every waiter on the first answer, probing once per period for all of them, and stops when answered', async () => {
  let probes = 0;
  let up = false;
  const r: Reachability = new Reachability(() => {
    probes++;
    if (up) r.answered();
    else r.failed();
    return Promise.resolve();
  }, 50);
  expect(await r.whenAnswering(new AbortController().signal)).toBe(true); // not known to be down: at once
  r.failed();
  const waiting = [1, 2, 3].map(() => r.whenAnswering(new AbortController().signal));
  await vi.advanceTimersByTimeAsync(200);
  expect(probes).toBe(4); // one loop for three waiters: one probe per period
  up = true;
  await vi.advanceTimersByTimeAsync(50);
  expect(await Promise.all(waiting)).toEqual([true, true, true]);
  expect(probes).toBe(5);
  await vi.advanceTimersByTimeAsync(500);
  expect(probes).toBe(5);
  expect(r.isDown).toBe(false);
});

it('a waiter whose signal aborts gets false, and the probing stops when nobody waits', async () => {
  let probes = 0;
  const r = new Reachability(() => {
    probes++;
    return Promise.resolve();
  }, 20);
  r.failed();
  const ac = new AbortController();
  const waiting = r.whenAnswering(ac.signal);
  await vi.advanceTimersByTimeAsync(20);
  expect(probes).toBe(1);
  ac.abort();
  expect(await waiting).toBe(false);
  await vi.advanceTimersByTimeAsync(200);
  expect(probes).toBe(1);
  expect(r.isDown).toBe(true);
  expect(vi.getTimerCount()).toBe(0);
});
