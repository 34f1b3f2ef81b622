import { describe, expect, it } from 'vitest';
import { Deque } from './deque.js';

describe('Deque', () => {
  it('keeps FIFO order across emptying, refilling and compaction', () => {
    const d = new Deque<number>();
    const out: number[] = [];
    let next = 0;
    // Rounds that empty it (the idle reset) and one long run that passes the compaction threshold.
    for (const [pushes, shifts] of [
      [3, 3],
      [5, 2],
      [1, 4],
      [3000, 2900],
      [0, 100],
    ] as const) {
      for (let i = 0; i < pushes; i++) d.push(next++);
      for (let i = 0; i < shifts; i++) out.push(d.shift()!);
    }
    expect(out).toEqual(Array.from({ length: next }, (_, i) => i));
    expect(d.length).toBe(0);
    expect(d.shift()).toBeUndefined();
    d.push(42);
    expect([...d]).toEqual([42]);
  });
});
