import { getEventListeners } from 'node:events';
import { afterEach, expect, test, vi } from 'vitest';
import { DemoStats } from './stats.js';
import { runView } from './view.js';

afterEach(() => {
  vi.useRealTimers();
});

test.each([
  { live: true, everyMs: 500 },
  { live: false, everyMs: 2_000 },
])('refreshes every $everyMs ms (live: $live) with at most one abort listener on the run signal', async ({ live, everyMs }) => {
  vi.useFakeTimers();
  const writes: string[] = [];
  const out = { write: (text: string) => writes.push(text) > 0 } as unknown as NodeJS.WritableStream;
  const run = new AbortController();
  const done = runView({ stats: new DemoStats(), queueDepth: () => Promise.resolve(0), engaged: () => [] }, live, run.signal, out);
  await vi.advanceTimersByTimeAsync(everyMs * 30);
  expect(writes.length).toBeGreaterThanOrEqual(30);
  expect(getEventListeners(run.signal, 'abort').length).toBeLessThanOrEqual(1);
  run.abort();
  await done;
  expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
});
