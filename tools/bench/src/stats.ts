/** Summaries of samples: percentiles (nearest rank) and spread, so every figure is reported with its variation. */

export interface Summary {
  n: number;
  min: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((s, v) => s + v, 0);
  return {
    n: sorted.length,
    min: sorted[0] ?? Number.NaN,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.length ? sum / sorted.length : Number.NaN,
  };
}

/** The median of a few repeated measurements, with their range. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  samples: number[];
}

export function spread(samples: readonly number[]): Spread {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    median: percentile(sorted, 50),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
    samples: [...samples],
  };
}

/** µs samples to ms summary. */
export function summarizeMicros(samples: readonly number[]): Summary {
  const s = summarize(samples);
  return { n: s.n, min: s.min / 1000, p50: s.p50 / 1000, p99: s.p99 / 1000, max: s.max / 1000, mean: s.mean / 1000 };
}
