import { PassThrough } from 'node:stream';
import { expect, test } from 'vitest';
import { runDemo } from './demo.js';

test('the embedded demo reconciles in every member, with members joining and leaving, then stops by itself', async () => {
  const out = new PassThrough();
  let printed = '';
  out.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const summary = await runDemo(
    { durationSec: 12, clusters: 2, maxClusters: 4, churnSec: 2, plain: true, source: { kind: 'embedded' } },
    new AbortController().signal,
    out,
  );
  expect(printed).toMatch(/^t=\d/m);
  expect(printed).toContain(`summary: ${summary.reconciles} reconciles`);
  // The provider's view of each member: engaged, and its API server answering the health check.
  expect(printed).toMatch(/^CLUSTER\s+STATE\s+HEALTH/m);
  const engaged = summary.rows.filter((r) => r.state === 'engaged');
  expect(engaged.length).toBeGreaterThan(0);
  for (const row of engaged) expect(row.health, row.cluster).toBe('ok');
  // member-1 and member-2 are there from the start and each holds three demo ConfigMaps for two controllers.
  for (const member of ['member-1', 'member-2']) {
    const row = summary.rows.find((r) => r.cluster.endsWith(`+${member}`));
    expect(row, `${member} was reconciled`).toBeDefined();
    expect(row!.reconciles['stamp']).toBeGreaterThanOrEqual(3);
    expect(row!.reconciles['mirror']).toBeGreaterThanOrEqual(3);
  }
  // Churn added at least one member beyond the initial two.
  expect(summary.clusters).toBeGreaterThan(2);
}, 60_000);
