import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { noopMetrics, type MetricsRecorder } from '../metrics/types.js';
import { ExponentialFailureRateLimiter } from './exponential-failure-rate-limiter.js';
import { InvalidDelayError } from './errors.js';
import { newRateLimitingQueue } from './rate-limiting-queue.js';

interface Job {
  group: string;
  id: string;
}

const job = (group: string, id: string): Job => ({ group, id });

function jobQueue(extra: Partial<Parameters<typeof newRateLimitingQueue<Job>>[0]> = {}) {
  return newRateLimitingQueue<Job>({ name: 'jobs', key: (j) => `${j.group}/${j.id}`, group: (j) => j.group, ...extra });
}

/** Resolves what `get` has handed out so far without waiting for more. */
async function settled<T>(p: Promise<T>): Promise<{ done: boolean; value?: T }> {
  let state: { done: boolean; value?: T } = { done: false };
  void p.then((value) => (state = { done: true, value }));
  await Promise.resolve();
  await Promise.resolve();
  return state;
}

describe('work queue: dedup and exclusivity', () => {
  it('keeps one copy of an item that is added twice while waiting', async () => {
    const q = jobQueue();
    q.add(job('a', '1'));
    q.add({ id: '1', group: 'a' });
    q.add(job('a', '2'));
    expect(q.len()).toBe(2);
    expect(await q.get()).toEqual(job('a', '1'));
    expect(await q.get()).toEqual(job('a', '2'));
    expect(q.len()).toBe(0);
    q.shutDown();
  });

  it('never hands out an item that is being processed, and hands it out again after done', async () => {
    const q = jobQueue();
    q.add(job('a', '1'));
    const first = await q.get();
    q.add(job('a', '1'));
    q.add(job('a', '1'));
    expect(q.len()).toBe(0);
    const second = q.get();
    expect((await settled(second)).done).toBe(false);
    q.done(first!);
    expect(await second).toEqual(job('a', '1'));
    q.done(job('a', '1'));
    expect(q.len()).toBe(0);
    q.shutDown();
  });

  it('hands items out in the order they were added within a group', async () => {
    const q = jobQueue();
    for (const id of ['3', '1', '2']) q.add(job('a', id));
    const got = [await q.get(), await q.get(), await q.get()].map((j) => j?.id);
    expect(got).toEqual(['3', '1', '2']);
    q.shutDown();
  });

  it('wakes a waiting get when an item arrives, oldest get first', async () => {
    const q = jobQueue();
    const g1 = q.get();
    const g2 = q.get();
    q.add(job('a', '1'));
    expect(await g1).toEqual(job('a', '1'));
    expect((await settled(g2)).done).toBe(false);
    q.add(job('a', '2'));
    expect(await g2).toEqual(job('a', '2'));
    q.shutDown();
  });

  it('resolves an aborted get with undefined and loses no item', async () => {
    const q = jobQueue();
    const ac = new AbortController();
    const waiting = q.get(ac.signal);
    ac.abort();
    expect(await waiting).toBeUndefined();
    q.add(job('a', '1'));
    expect(q.len()).toBe(1);
    expect(await q.get(AbortSignal.abort())).toBeUndefined();
    expect(await q.get()).toEqual(job('a', '1'));
    q.shutDown();
  });

  it('ignores done for an item that was not handed out', () => {
    const q = jobQueue();
    q.add(job('a', '1'));
    q.done(job('a', '1'));
    expect(q.len()).toBe(1);
    q.shutDown();
  });
});

describe('work queue: fairness across groups', () => {
  it('hands out a quiet group’s item within the first two gets despite 10,000 waiting in another', async () => {
    const q = jobQueue();
    for (let i = 0; i < 10_000; i++) q.add(job('A', String(i)));
    q.add(job('B', 'only'));
    const first = await q.get();
    const second = await q.get();
    expect([first?.group, second?.group]).toContain('B');
    expect(q.len()).toBe(9_999);
    q.shutDown();
  });

  it('takes from groups in turn', async () => {
    const q = jobQueue();
    for (let i = 0; i < 3; i++) q.add(job('A', String(i)));
    for (let i = 0; i < 2; i++) q.add(job('B', String(i)));
    q.add(job('C', '0'));
    const order: string[] = [];
    for (let i = 0; i < 6; i++) order.push((await q.get())!.group);
    expect(order).toEqual(['A', 'B', 'C', 'A', 'B', 'A']);
    q.shutDown();
  });

  it('gives a group that was drained and refilled a fresh turn', async () => {
    const q = jobQueue();
    q.add(job('A', '1'));
    q.add(job('A', '2'));
    q.add(job('B', '1'));
    expect((await q.get())!.group).toBe('A');
    expect((await q.get())!.group).toBe('B');
    q.add(job('B', '2'));
    expect((await q.get())!.group).toBe('A');
    expect((await q.get())!.group).toBe('B');
    q.shutDown();
  });
});

describe('work queue: dropGroup', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('drops a group’s waiting, delayed and re-added items and its failure counts, and nothing else', async () => {
    const q = jobQueue({ rateLimiter: new ExponentialFailureRateLimiter<Job>({ key: (j) => `${j.group}/${j.id}` }) });
    q.add(job('gone', 'w'));
    q.add(job('gone', 'busy'));
    q.add(job('kept', 'w'));
    q.addAfter(job('gone', 'later'), 1000);
    q.addAfter(job('kept', 'later'), 1000);
    q.addRateLimited(job('gone', 'failing'));
    q.addRateLimited(job('kept', 'failing'));

    const busy = await q.get();
    expect(busy).toEqual(job('gone', 'w'));
    const busy2 = await q.get();
    expect(busy2).toEqual(job('kept', 'w'));
    const busy3 = await q.get();
    expect(busy3).toEqual(job('gone', 'busy'));
    q.add(job('gone', 'busy')); // re-added while processing

    q.dropGroup('gone');
    expect(q.numRequeues(job('gone', 'failing'))).toBe(0);
    expect(q.numRequeues(job('kept', 'failing'))).toBe(1);
    q.done(busy3!);
    expect(q.lenOf('gone')).toBe(0);

    await vi.advanceTimersByTimeAsync(1000);
    const left: Job[] = [];
    while (q.len() > 0) left.push((await q.get())!);
    expect(left).toEqual(expect.arrayContaining([job('kept', 'later'), job('kept', 'failing')]));
    expect(left).toHaveLength(2);

    q.add(job('gone', 'back'));
    expect(await q.get()).toEqual(job('gone', 'back'));
    q.shutDown();
  });
});

describe('work queue: shutdown', () => {
  it('shutDown abandons waiting items, wakes waiting gets and refuses new items', async () => {
    const q = jobQueue();
    const waiting = q.get();
    q.shutDown();
    expect(await waiting).toBeUndefined();
    const q2 = jobQueue();
    q2.add(job('a', '1'));
    q2.shutDown();
    expect(q2.isShuttingDown()).toBe(true);
    expect(q2.len()).toBe(0);
    expect(await q2.get()).toBeUndefined();
    q2.add(job('a', '2'));
    q2.addAfter(job('a', '3'), 0);
    q2.addRateLimited(job('a', '4'));
    expect(q2.len()).toBe(0);
  });

  it('shutDownWithDrain resolves only once every item being processed is done', async () => {
    const q = jobQueue();
    q.add(job('a', '1'));
    q.add(job('b', '1'));
    const one = await q.get();
    const two = await q.get();
    const drained = q.shutDownWithDrain();
    expect(q.isShuttingDown()).toBe(true);
    expect(await q.get()).toBeUndefined();
    q.done(one!);
    expect((await settled(drained)).done).toBe(false);
    q.done(two!);
    await expect(drained).resolves.toBeUndefined();
  });

  it('shutDownWithDrain stops waiting when its signal aborts', async () => {
    const q = jobQueue();
    q.add(job('a', '1'));
    await q.get();
    const ac = new AbortController();
    const drained = q.shutDownWithDrain(ac.signal);
    expect((await settled(drained)).done).toBe(false);
    ac.abort();
    await expect(drained).resolves.toBeUndefined();
  });

  it('shutDownWithDrain with nothing in flight resolves at once', async () => {
    await expect(jobQueue().shutDownWithDrain()).resolves.toBeUndefined();
  });
});

describe('work queue: delayed adds', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('adds an item once its delay has passed', async () => {
    const q = jobQueue();
    q.addAfter(job('a', '1'), 100);
    expect(q.len()).toBe(0);
    expect(q.delayedLen()).toBe(1);
    await vi.advanceTimersByTimeAsync(99);
    expect(q.len()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(q.len()).toBe(1);
    expect(q.delayedLen()).toBe(0);
    q.shutDown();
  });

  it('wakes a waiting get when a delayed item becomes ready', async () => {
    const q = jobQueue();
    const waiting = q.get();
    q.addAfter(job('a', '1'), 50);
    await vi.advanceTimersByTimeAsync(50);
    expect(await waiting).toEqual(job('a', '1'));
    q.shutDown();
  });

  it('lets the earliest delay of an item win and adds it only once', async () => {
    const q = jobQueue();
    q.addAfter(job('a', '1'), 1000);
    q.addAfter(job('a', '1'), 10);
    q.addAfter(job('a', '1'), 500);
    expect(q.delayedLen()).toBe(1);
    await vi.advanceTimersByTimeAsync(10);
    expect(q.len()).toBe(1);
    q.done((await q.get())!);
    await vi.advanceTimersByTimeAsync(2000);
    expect(q.len()).toBe(0);
    q.shutDown();
  });

  it('releases items in ready-time order, equal times in the order added', async () => {
    const q = jobQueue();
    q.addAfter(job('a', 'late'), 30);
    q.addAfter(job('a', 'x'), 10);
    q.addAfter(job('a', 'y'), 10);
    q.addAfter(job('a', 'mid'), 20);
    await vi.advanceTimersByTimeAsync(30);
    const order: string[] = [];
    while (q.len() > 0) order.push((await q.get())!.id);
    expect(order).toEqual(['x', 'y', 'mid', 'late']);
    q.shutDown();
  });

  it('uses one timer for any number of delayed items, and none after shutdown', async () => {
    const q = jobQueue();
    for (let i = 0; i < 1000; i++) q.addAfter(job('a', String(i)), 10 + (i % 97));
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(50);
    expect(vi.getTimerCount()).toBe(1);
    q.shutDown();
    expect(vi.getTimerCount()).toBe(0);
    expect(q.delayedLen()).toBe(0);
  });

  it('waits out delays longer than setTimeout can express (~24.8 days)', async () => {
    const q = jobQueue();
    const day = 24 * 3600 * 1000;
    q.addAfter(job('a', '1'), 30 * day);
    await vi.advanceTimersByTimeAsync(25 * day);
    expect(q.len()).toBe(0);
    await vi.advanceTimersByTimeAsync(5 * day);
    expect(q.len()).toBe(1);
    q.shutDown();
  });

  it('adds at once for a delay ≤ 0 and rejects NaN and infinite delays', () => {
    const q = jobQueue();
    q.addAfter(job('a', '1'), 0);
    q.addAfter(job('a', '2'), -5);
    expect(q.len()).toBe(2);
    expect(() => q.addAfter(job('a', '3'), Number.NaN)).toThrow(InvalidDelayError);
    expect(() => q.addAfter(job('a', '3'), Infinity)).toThrow(/finite number of milliseconds/);
    q.shutDown();
  });
});

describe('work queue: rate-limited retries', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('backs off exponentially from 5 ms by default and forgets on request', async () => {
    const q = jobQueue();
    const item = job('a', '1');
    const readyAfter = async (): Promise<number> => {
      q.addRateLimited(item);
      let waited = 0;
      while (q.len() === 0) {
        await vi.advanceTimersByTimeAsync(1);
        waited++;
      }
      q.done((await q.get())!);
      return waited;
    };
    expect([await readyAfter(), await readyAfter(), await readyAfter(), await readyAfter()]).toEqual([5, 10, 20, 40]);
    expect(q.numRequeues(item)).toBe(4);
    q.forget(item);
    expect(q.numRequeues(item)).toBe(0);
    expect(await readyAfter()).toBe(5);
    q.shutDown();
  });
});

describe('work queue: metrics', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('reports adds, depth per group, latency and retries', async () => {
    const calls: string[] = [];
    const latencies: number[] = [];
    const metrics: MetricsRecorder = {
      ...noopMetrics,
      queueAdd: (q, c) => calls.push(`add ${q} ${c}`),
      queueDepth: (q, c, d) => calls.push(`depth ${q} ${c} ${d}`),
      queueLatency: (q, c, s) => {
        calls.push(`latency ${q} ${c}`);
        latencies.push(s);
      },
      queueRetry: (q, c) => calls.push(`retry ${q} ${c}`),
    };
    const q = jobQueue({ metrics });
    q.add(job('east', '1'));
    q.add(job('east', '1'));
    q.add(job('west', '1'));
    await vi.advanceTimersByTimeAsync(250);
    await q.get();
    q.addRateLimited(job('west', '2'));
    expect(calls).toEqual([
      'add jobs east',
      'depth jobs east 1',
      'add jobs west',
      'depth jobs west 1',
      'depth jobs east 0',
      'latency jobs east',
      'retry jobs west',
    ]);
    expect(latencies[0]).toBeCloseTo(0.25, 3);
    q.shutDown();
  });
});
