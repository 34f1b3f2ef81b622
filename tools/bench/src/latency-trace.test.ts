import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { LatencySplit } from './latency-trace.js';

const folder = mkdtempSync(join(tmpdir(), 'mcr-trace-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

test('arrivals whose updates were coalesced away are forgotten, so a long traced run does not grow without bound', () => {
  // Arrivals older than 0 µs are stale at the first sweep (every 10,000 arrivals).
  const split = new LatencySplit(folder, 0);
  for (let i = 0; i < 9_999; i++) split.reachedController(`s${i}`);
  expect(split.pending).toBe(9_999);
  split.reachedController('s9999');
  expect(split.pending).toBe(0);

  // With the default age (a minute), a reconciled stamp is taken out and the rest stay. (Stamps that are not numbers
  // record no event, so nothing is written into the folder when the test process exits.)
  const kept = new LatencySplit(folder);
  for (let i = 0; i < 20_000; i++) kept.reachedController(`s${i}`);
  kept.reconciled('s5');
  expect(kept.pending).toBe(19_999);
});
