import { describe, expect, it } from 'vitest';
import { foldProfile, type CpuProfile } from './flamegraph.js';
import { breakdown } from './profile-breakdown.js';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });
const core = (file: string) => `file:///w/packages/core/dist/${file}`;

/**
 * (root) → processTicksAndRejections → runMicrotasks → decodeLine → parse (a builtin, no url): decoding;
 *                                                    → add (fair queue) → get (a builtin): the queue;
 *                                                    → apply (store) → deepFreeze: the freeze, apply itself: the store;
 * (root) → (garbage collector); (root) → record (the bench's reconciler); (root) → (idle), left out.
 */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 9, 10, 11] },
    { id: 2, callFrame: frame('processTicksAndRejections', 'node:internal/process/task_queues', 66), children: [3] },
    { id: 3, callFrame: frame('runMicrotasks'), children: [4, 6, 7] },
    { id: 4, callFrame: frame('decodeLine', core('client/watch-decoder.js'), 95), children: [5] },
    { id: 5, callFrame: frame('parse') },
    { id: 6, callFrame: frame('add', core('workqueue/fair-queue.js'), 35), children: [12] },
    { id: 7, callFrame: frame('apply', core('cache/store.js'), 66), children: [8] },
    { id: 8, callFrame: frame('deepFreeze', core('cache/transform.js'), 21) },
    { id: 9, callFrame: frame('(garbage collector)') },
    { id: 10, callFrame: frame('record', 'file:///w/tools/bench/dist/runners/recorder.js', 16) },
    { id: 11, callFrame: frame('(idle)') },
    { id: 12, callFrame: frame('get') },
  ],
  startTime: 0,
  // Each sample weighs the delta that follows it (1 ms); the last sample weighs nothing.
  samples: [5, 5, 5, 12, 8, 8, 7, 3, 9, 10, 11, 11, 5],
  timeDeltas: Array.from({ length: 13 }, () => 1000),
};

describe('profile breakdown', () => {
  it('counts each busy sample for the deepest frame a part claims, and leaves idle time out', () => {
    const rows = breakdown(foldProfile(profile, 0));
    expect(rows.map((r) => [r.part, r.micros])).toEqual([
      ['decoding watch lines (JSON.parse)', 3000],
      ['store: deep freeze', 2000],
      ['promises and microtasks', 1000],
      ['work queue: dedup, fairness, hand-off', 1000],
      ['store: keep and index', 1000],
      ['garbage collection', 1000],
      ['the reconciler: record the object', 1000],
    ]);
    expect(rows.reduce((sum, r) => sum + r.percent, 0)).toBeCloseTo(100);
    expect(rows[0]!.percent).toBeCloseTo(30);
  });
});
