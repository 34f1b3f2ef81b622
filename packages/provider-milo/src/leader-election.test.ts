/**
 * Replicas with leader election (Milo's bug #732: standby replicas answered "cluster not found", because the
 * provider, like every leader-gated runnable, only ran on the leader). Core runs providers on every replica, so
 * lookups (webhooks, quota checks) work on all of them, and only the leader's controllers reconcile; a provider that
 * asks for `needLeaderElection` gets upstream's behaviour back.
 */
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { ClusterNotFoundError, controllerManagedBy, isNotFound, newManager, silentLogger } from '@multicluster-runtime/core';
import { loadUntrustedKubeconfig } from '@multicluster-runtime/core/kubeconfig';
import type { Request } from '@multicluster-runtime/core';
import type { MultiClusterManager } from '@multicluster-runtime/core/manager';
import { startMiloServer, type MiloServer } from '@multicluster-runtime/envtest/milo';
import { MiloProvider } from './index.js';

const configMap = { apiVersion: 'v1', kind: 'ConfigMap' };
const election = {
  enabled: true,
  namespace: 'default',
  name: 'milo-operator',
  leaseDurationMs: 3_000,
  renewDeadlineMs: 2_000,
  retryPeriodMs: 200,
};
let milo: MiloServer;

beforeAll(async () => {
  milo = await startMiloServer({ name: 'milo-le' });
});
afterAll(async () => {
  await milo.close();
});

function provider(): MiloProvider {
  return new MiloProvider({ retry: { initialMs: 100, maxMs: 500 } });
}

/** A replica; its controller labels ConfigMaps with the replica's id. */
function replica(id: string, reconciled: string[]): MultiClusterManager {
  const mgr = newManager(loadUntrustedKubeconfig(milo.kubeconfig()), provider(), {
    logger: silentLogger,
    leaderElection: { ...election, id },
  });
  controllerManagedBy(mgr)
    .named('label-configmaps')
    .for(configMap)
    .complete(async (req: Request, ctx) => {
      if (req.clusterName === '') return;
      reconciled.push(`${req.clusterName}/${req.name}`);
      const cluster = await mgr.getCluster(req.clusterName);
      try {
        await cluster.client.patch(
          configMap,
          req,
          { type: 'merge', body: { metadata: { labels: { 'reconciled-by': id } } } },
          { signal: ctx.signal },
        );
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    });
  return mgr;
}

test('every replica answers getCluster for engaged projects; only the leader reconciles', async () => {
  const logs: [string[], string[]] = [[], []];
  const mgrs = [replica('replica-0', logs[0]), replica('replica-1', logs[1])];
  const stops = mgrs.map(() => new AbortController());
  const runs = mgrs.map((m, i) => m.start(stops[i]!.signal));
  // Upstream's wiring for comparison: a leader-only provider, so this standby knows no project.
  const plainProvider = Object.assign(provider(), { needLeaderElection: true });
  const plain = newManager(loadUntrustedKubeconfig(milo.kubeconfig()), plainProvider, {
    logger: silentLogger,
    leaderElection: { ...election, id: 'replica-plain' },
  });
  const plainStop = new AbortController();
  let plainRun: Promise<void> | undefined;
  try {
    const leader = await Promise.race(mgrs.map((m, i) => m.elected().then(() => i)));
    const follower = 1 - leader;
    plainRun = plain.start(plainStop.signal);

    await milo.fixtures.createProject('shop', { ready: true });
    for (const m of mgrs) await vi.waitFor(() => expect(m.engagedClusters()).toContain('shop'), { timeout: 10_000 });
    const onFollower = await mgrs[follower]!.getCluster('shop');
    await onFollower.client.create({ ...configMap, metadata: { namespace: 'default', name: 'order-1' } });

    const viaLeader = await mgrs[leader]!.getCluster('shop');
    await expect
      .poll(
        async () => (await viaLeader.client.get(configMap, { namespace: 'default', name: 'order-1' })).metadata.labels?.['reconciled-by'],
        {
          timeout: 10_000,
        },
      )
      .toBe(`replica-${leader}`);
    expect(logs[leader]).toContain('shop/order-1');
    expect(logs[follower]).toEqual([]);
    await expect(plain.getCluster('shop')).rejects.toBeInstanceOf(ClusterNotFoundError);
  } finally {
    plainStop.abort();
    for (const s of stops) s.abort();
    await Promise.all([...runs, plainRun]);
  }
});
