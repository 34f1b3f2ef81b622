import { describe, expect, it } from 'vitest';
import { foldProfile, layoutFlame, type CpuProfile } from './flamegraph.js';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });

/** (root) → run (core) → parse (dependency), (root) → (garbage collector), (root) → (idle). */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 4, 5] },
    { id: 2, callFrame: frame('run', 'file:///w/packages/core/dist/cache/informer.js', 57), children: [3] },
    { id: 3, callFrame: frame('parse', 'file:///w/node_modules/x/index.js', 9) },
    { id: 4, callFrame: frame('(garbage collector)') },
    { id: 5, callFrame: frame('(idle)') },
  ],
  startTime: 0,
  // Each sample's weight is the delta that follows it.
  samples: [2, 3, 3, 2, 4, 5, 3, 3],
  timeDeltas: [0, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
};

describe('flame graph', () => {
  it('merges samples by stack, leaves idle time and the skipped start out, and lays boxes out widest first', () => {
    const all = layoutFlame(foldProfile(profile, 0));
    expect(all.map((b) => [b.name, b.depth, b.start, b.end])).toEqual([
      ['all', 0, 0, 6000],
      ['run informer.js:58', 1, 0, 5000],
      ['parse index.js:10', 2, 0, 3000], // children from their parent's start; run's own 2 ms after them
      ['(garbage collector)', 1, 5000, 6000],
    ]);
    expect(all.map((b) => b.category)).toEqual(['all', 'multicluster-runtime', 'dependency', 'gc']);
    // Skipping the first 3 ms keeps the samples taken at 3 ms and later: run, gc and parse, 1 ms each.
    const late = layoutFlame(foldProfile(profile, 3000));
    expect(late.find((b) => b.depth === 0)?.end).toBe(3000);
    expect(late.find((b) => b.name.startsWith('parse'))?.percent).toBeCloseTo((100 * 1000) / 3000);
  });
});
