import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { newCluster } from '@multicluster-runtime/core';
import { kubeconfigOf } from '@multicluster-runtime/core/testing';
import { startApiServer } from '@multicluster-runtime/envtest';
import { startGardenServer } from '@multicluster-runtime/envtest/gardener';
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

test('--garden: the shoots of a Gardener garden are the members', async () => {
  const garden = await startGardenServer({ name: 'garden' });
  const shoots = await Promise.all([startApiServer({ name: 'alpha' }), startApiServer({ name: 'sleepy' })]);
  const dir = mkdtempSync(join(tmpdir(), 'demo-garden-'));
  try {
    await garden.fixtures.createShoot('dev', 'alpha', { server: shoots[0] });
    await garden.fixtures.createShoot('dev', 'sleepy', { server: shoots[1], hibernated: true });
    for (const shoot of shoots) {
      const client = newCluster(kubeconfigOf(shoot), { name: 'seed-objects' });
      await client.apiReader.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: 'default', name: 'greeting', labels: { 'app.kubernetes.io/part-of': 'demo' } },
        data: { hello: 'garden' },
      });
      await client.close();
    }
    const file = join(dir, 'garden.kubeconfig');
    writeFileSync(file, garden.kubeconfig(), { mode: 0o600 });
    const summary = await runDemo(
      { durationSec: 5, clusters: 0, maxClusters: 1, churnSec: 0, plain: true, source: { kind: 'garden', kubeconfig: file } },
      new AbortController().signal,
      new PassThrough(),
    );
    const alpha = summary.rows.find((r) => r.cluster === 'garden-dev/alpha');
    expect(alpha?.state).toBe('engaged');
    expect(alpha?.reconciles['stamp']).toBeGreaterThanOrEqual(1);
    expect(summary.rows.find((r) => r.cluster === 'garden-dev/sleepy')?.state).toBe('notReady');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await Promise.all([garden, ...shoots].map((s) => s.close()));
  }
}, 60_000);

test('--garden with a kubeconfig that cannot be read is a usage error naming the file, not a crash', async () => {
  await expect(
    runDemo(
      {
        durationSec: 1,
        clusters: 0,
        maxClusters: 1,
        churnSec: 0,
        plain: true,
        source: { kind: 'garden', kubeconfig: '/nonexistent/garden.yaml' },
      },
      new AbortController().signal,
      new PassThrough(),
    ),
  ).rejects.toThrow(/--garden: cannot load the kubeconfig \/nonexistent\/garden\.yaml \(ENOENT\)/);
});
