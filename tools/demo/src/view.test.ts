import { getEventListeners } from 'node:events';
import { afterEach, expect, test, vi } from 'vitest';
import type { ClusterStatus } from '@multicluster-runtime/core/providers';
import { DemoStats } from './stats.js';
import { renderTable, runView } from './view.js';

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

test("the table shows each cluster's provider state and health, and keeps clusters that never reconciled", async () => {
  const stats = new DemoStats();
  const now = Date.now();
  const statuses = new Map<string, ClusterStatus>([
    ['fleet+up', { state: 'engaged', since: new Date(now), failures: 0, health: { reachable: true, since: new Date(now) } }],
    [
      'fleet+down',
      {
        state: 'engaged',
        since: new Date(now),
        failures: 0,
        health: { reachable: false, since: new Date(now - 7_000), lastError: 'ECONNREFUSED' },
      },
    ],
    ['fleet+refused', { state: 'rejected', reason: 'exec needs "exec"', since: new Date(now), failures: 0 }],
  ]);
  const table = await renderTable({
    stats,
    queueDepth: () => Promise.resolve(0),
    engaged: () => ['fleet+up', 'fleet+down'],
    statuses: () => statuses,
  });
  const row = (name: string) =>
    table
      .split('\n')
      .find((l) => l.startsWith(name))
      ?.split(/\s+/);
  expect(table).toMatch(/^CLUSTER\s+STATE\s+HEALTH\s+STAMP/m);
  expect(table).toContain('2 clusters engaged');
  expect(row('up')).toEqual(['up', 'engaged', 'ok', '0', '0', '0']);
  expect(table).toMatch(/^down\s+engaged\s+down [78]s\s/m);
  expect(row('refused')).toEqual(['refused', 'rejected', '-', '0', '0', '0']);
});
