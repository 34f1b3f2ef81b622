/**
 * Per-member cache limits, end to end: a member whose objects pass the cluster's `cacheLimits` is failed alone —
 * its status says which limit, the metric counts it, and it is retried with backoff — while the member beside it
 * keeps reconciling. Objects and bytes each, under one manager and controller.
 */
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { CacheLimits } from '../../cache/budget.js';
import { newCluster, type KubeCluster } from '../../cluster/cluster.js';
import { PrometheusMetrics } from '../../metrics/prometheus.js';
import { configOf, withHealthyMember } from './hostile-member.test-util.js';

let healthy: ApiServer;
let big: ApiServer;
let bigAdmin: KubeCluster;

beforeAll(async () => {
  [healthy, big] = await Promise.all([startApiServer({ name: 'healthy' }), startApiServer({ name: 'big' })]);
  bigAdmin = newCluster(configOf(big.kubeconfig()), { name: 'big-admin' });
  // 40 ConfigMaps of ~2 KB: over 20 objects, and over 50 KB.
  for (let i = 0; i < 40; i++) {
    await bigAdmin.apiReader.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'default', name: `cm-${i}` },
      data: { d: 'x'.repeat(2_000) },
    });
  }
});

afterAll(async () => {
  await bigAdmin.close();
  await Promise.all([healthy.close(), big.close()]);
});

test.each<[string, CacheLimits, RegExp]>([
  ['objects', { maxObjects: 20 }, /more than 20 objects in its cache \(limit maxObjects/],
  ['bytes', { maxBytes: 50_000 }, /more than 50000 bytes of objects in its cache \(limit maxBytes/],
])(
  'a member over its %s limit fails alone: status, metric, retries; the other member keeps reconciling',
  async (limit, limits, reason) => {
    const metrics = new PrometheusMetrics();
    const connection = { clusterOptions: { cacheLimits: limits }, retry: { initialMs: 200, maxMs: 400 } };
    await withHealthyMember(
      healthy,
      [['big', configOf(big.kubeconfig())]],
      connection,
      async ({ provider, latencies }) => {
        // Read together: the member is retried at once, so 'failed' lasts only until the next attempt.
        await expect
          .poll(
            () => {
              const status = provider.status('big');
              return status?.state === 'failed' ? (status.reason ?? '') : '';
            },
            { timeout: 20_000 },
          )
          .toMatch(reason);
        // Retried with backoff: it is engaged again, passes the limit again, and the counter shows each time.
        const breaches = async () => {
          const line = (await metrics.registry.metrics())
            .split('\n')
            .find((l) => l.startsWith(`mcr_cache_limit_exceeded_total{cluster="big",limit="${limit}"}`));
          return Number(line?.split(' ').pop() ?? 0);
        };
        await expect.poll(breaches, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
        // The healthy member is neither failed nor slowed.
        expect(provider.status('healthy')?.state).toBe('engaged');
        const measured = await latencies(`limit-${limit}`, 3);
        expect(Math.max(...measured)).toBeLessThan(2_000);
        expect(provider.status('healthy')?.state).toBe('engaged');
      },
      { metrics },
    );
  },
  60_000,
);
