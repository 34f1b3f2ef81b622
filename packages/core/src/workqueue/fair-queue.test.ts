import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { FairQueue } from './fair-queue.js';

describe('FairQueue under concurrent workers', () => {
  it('never hands out an item twice at once and processes every item after its last add', async () => {
    // A seeded generator keeps the run reproducible while still mixing adds, gets and dones unpredictably.
    let seed = 42;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const q = new FairQueue<string>({ name: 'model', key: (s) => s, group: (s) => s.slice(0, 1) });
    const items = ['a1', 'a2', 'a3', 'b1', 'b2', 'c1'];
    const inFlight = new Set<string>();
    /** Adds not yet followed by a processing that started after them. */
    const owed = new Set<string>();
    let violations = 0;

    const worker = async (): Promise<void> => {
      for (;;) {
        const item = await q.get();
        if (item === undefined) return;
        if (inFlight.has(item)) violations++;
        inFlight.add(item);
        owed.delete(item);
        for (let i = 0; i < Math.floor(random() * 3); i++) await Promise.resolve();
        if (random() < 0.3) {
          const again = items[Math.floor(random() * items.length)]!;
          owed.add(again);
          q.add(again);
        }
        inFlight.delete(item);
        q.done(item);
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    for (let round = 0; round < 2000; round++) {
      const item = items[Math.floor(random() * items.length)]!;
      owed.add(item);
      q.add(item);
      if (random() < 0.5) await Promise.resolve();
    }
    await expect.poll(() => q.len() + q.processingCount()).toBe(0);
    expect(owed.size).toBe(0);
    expect(violations).toBe(0);
    await q.shutDownWithDrain();
    await Promise.all(workers);
  });
});

describe('FairQueue signals', () => {
  it('leaves no abort listener behind on a long-lived signal', async () => {
    const q = new FairQueue<string>({ name: 'q', key: (s) => s });
    const ac = new AbortController();
    for (let i = 0; i < 100; i++) {
      const pending = q.get(ac.signal);
      q.add(`i${i}`);
      const item = await pending;
      q.done(item!);
    }
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    q.add('busy');
    await q.get();
    const drained = q.shutDownWithDrain(ac.signal);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    q.done('busy');
    await drained;
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });

  it('keeps an item for the next caller when a waiting get is aborted', async () => {
    const q = new FairQueue<string>({ name: 'q', key: (s) => s });
    const ac = new AbortController();
    const aborted = q.get(ac.signal);
    const next = q.get();
    ac.abort();
    q.add('x');
    expect(await aborted).toBeUndefined();
    expect(await next).toBe('x');
    q.shutDown();
  });

  it('hands items to live gets in order however many gets were aborted before them, and shutDown answers the rest', async () => {
    const q = new FairQueue<string>({ name: 'q', key: (s) => s });
    const first = q.get();
    const aborted = Array.from({ length: 500 }, () => {
      const ac = new AbortController();
      const pending = q.get(ac.signal);
      ac.abort();
      return pending;
    });
    const second = q.get();
    const third = q.get(new AbortController().signal);
    expect(await Promise.all(aborted)).toEqual(aborted.map(() => undefined));
    q.add('a');
    q.add('b');
    expect([await first, await second]).toEqual(['a', 'b']);
    q.shutDown();
    expect(await third).toBeUndefined();
  });

  it('a group dropped and refilled takes one turn per round, as any other group', async () => {
    const q = new FairQueue<{ group: string; n: number }>({ name: 'q', key: (i) => `${i.group}/${i.n}`, group: (i) => i.group });
    for (let n = 0; n < 3; n++) q.add({ group: 'a', n });
    q.add({ group: 'b', n: 0 });
    q.dropGroup('a');
    for (let n = 0; n < 3; n++) q.add({ group: 'a', n });
    q.add({ group: 'b', n: 1 });
    q.add({ group: 'b', n: 2 });
    const order: string[] = [];
    while (q.len() > 0) {
      const item = (await q.get())!;
      order.push(`${item.group}${item.n}`);
      q.done(item);
    }
    expect(order).toEqual(['b0', 'a0', 'b1', 'a1', 'b2', 'a2']);
    q.shutDown();
  });
});
