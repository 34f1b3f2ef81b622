import { describe, expect, it } from 'vitest';
import { percentile, spread, summarize, summarizeMicros } from './stats.js';

describe('summaries', () => {
  it('takes nearest-rank percentiles, so p99 of 100 samples is the 99th smallest', () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i);
    const s = summarize(samples);
    expect(s).toMatchObject({ n: 100, min: 1, p50: 50, p99: 99, max: 100, mean: 50.5 });
    expect(percentile([7], 99)).toBe(7);
  });

  it('reports no samples as NaN rather than a made-up zero', () => {
    const s = summarize([]);
    expect(s.n).toBe(0);
    expect(s.p50).toBeNaN();
    expect(spread([]).median).toBeNaN();
  });

  it('converts µs samples to ms', () => {
    expect(summarizeMicros([1000, 3000, 2000])).toMatchObject({ min: 1, p50: 2, max: 3 });
  });
});
