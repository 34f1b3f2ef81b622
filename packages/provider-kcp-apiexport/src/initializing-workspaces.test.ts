/**
 * InitializingWorkspacesProvider against the fake kcp, as kcp-dev/multicluster-provider's initializingworkspaces
 * example uses it: a WorkspaceType with an initializer on two shards; its new workspaces are members while they wait,
 * each read through a cache of its own; an initializing controller does its work in the workspace (a ConfigMap) and
 * removes its initializer from the LogicalCluster's status; the workspace then becomes Ready and leaves the fleet.
 * Workspaces of another type never join.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { controllerManagedBy, newCluster, newManager, silentLogger, type KubeObject } from '@multicluster-runtime/core';
import type { KubeCluster } from '@multicluster-runtime/core/cluster';
import type { KcpServer, KcpWorkspace } from '@multicluster-runtime/envtest/kcp';
import { startKcpServer } from '@multicluster-runtime/envtest/kcp';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { InitializingWorkspacesProvider, LOGICAL_CLUSTER } from './initializing-workspaces.js';

type LogicalClusterObject = KubeObject & { status?: { phase?: string; initializers?: string[] } };
const configMaps = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

function kubeConfig(text: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(text);
  return kc;
}

let kcp: KcpServer;
let types: KcpWorkspace;

beforeAll(async () => {
  kcp = await startKcpServer({ shards: ['one', 'two'] });
  types = await kcp.createWorkspace('root:types');
  await kcp.createWorkspaceType(types, { name: 'initialized', initializer: true });
  await kcp.createWorkspaceType(types, { name: 'plain' });
});
afterAll(async () => {
  await kcp?.close();
});

test('workspaces waiting for the initializer are members until it removes itself; others never are', async () => {
  const initializer = `${types.name}:initialized`;
  const provider = new InitializingWorkspacesProvider({
    workspaceTypeName: 'initialized',
    config: kubeConfig(kcp.kubeconfig(types)),
    retry: { initialMs: 50, maxMs: 500 },
  });
  const mgr = newManager(kubeConfig(kcp.kubeconfig(kcp.root)), provider, { logger: silentLogger });
  const initialized: string[] = [];
  // The initializing controller: seed the workspace, then remove this initializer from the LogicalCluster.
  controllerManagedBy(mgr)
    .for(LOGICAL_CLUSTER)
    .complete(async (req, ctx) => {
      const ws = await mgr.getCluster(req.clusterName, ctx.signal);
      const lc = await ws.client.get<LogicalClusterObject>(LOGICAL_CLUSTER, req, ctx);
      if (!lc.status?.initializers?.includes(initializer)) return;
      await ws.client
        .create(
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'seeded' }, data: { by: 'initializer' } },
          ctx,
        )
        .catch((err: { code?: number }) => {
          if (err.code !== 409) throw err;
        });
      // Read back through the member's cache: the virtual workspace serves ConfigMaps per workspace only.
      await expect.poll(() => ws.client.get(configMaps, { namespace: 'default', name: 'seeded' }, ctx).then(() => true)).toBe(true);
      await ws.client.patch(
        LOGICAL_CLUSTER,
        req,
        {
          type: 'merge',
          body: {
            metadata: { resourceVersion: lc.metadata.resourceVersion },
            status: { initializers: lc.status.initializers.filter((i) => i !== initializer) },
          },
        },
        { ...ctx, subresource: 'status' },
      );
      initialized.push(req.clusterName);
    });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  const admins: KubeCluster[] = [];
  try {
    const a = await kcp.createWorkspace('root:a', { shard: 'one', type: { path: 'root:types', name: 'initialized' } });
    const b = await kcp.createWorkspace('root:b', { shard: 'two', type: { path: 'root:types', name: 'initialized' } });
    const plain = await kcp.createWorkspace('root:plain', { shard: 'two', type: { path: 'root:types', name: 'plain' } });

    // Both were members (their LogicalCluster reconciled through the member's own cache), and both got initialized.
    await expect.poll(() => [...initialized].sort(), { timeout: 20_000 }).toEqual([a.name, b.name].sort());
    const admin = (ws: KcpWorkspace) => {
      const cluster = newCluster(kubeConfig(kcp.kubeconfig(ws)), { name: `admin-${ws.name}` });
      admins.push(cluster);
      return cluster.apiReader;
    };
    const lc = async (ws: KcpWorkspace) => (await admin(ws).get<LogicalClusterObject>(LOGICAL_CLUSTER, { name: 'cluster' })).status;
    await expect.poll(async () => (await lc(a))?.phase, { timeout: 10_000 }).toBe('Ready');
    await expect.poll(async () => (await lc(b))?.phase, { timeout: 10_000 }).toBe('Ready');
    const seeded = await admin(b).get<KubeObject & { data?: Record<string, string> }>(configMaps, { namespace: 'default', name: 'seeded' });
    expect(seeded.data).toEqual({ by: 'initializer' });
    // Initialized, they left the virtual workspace and the fleet; the plain workspace never joined.
    await expect.poll(() => provider.names(), { timeout: 10_000 }).toEqual([]);
    expect(initialized).not.toContain(plain.name);
    expect(provider.endpoints().sort()).toEqual(['one', 'two'].map((s) => kcp.initializingUrl(s, types, 'initialized')).sort());
  } finally {
    stop.abort();
    await running;
    await Promise.all(admins.map((a) => a.close()));
  }
}, 60_000);

test('only initializingworkspaces URLs are followed, and a bad workspace type name is refused', () => {
  expect(() => new InitializingWorkspacesProvider({ workspaceTypeName: '', config: new KubeConfig() })).toThrow(
    /endpointSliceName is required/,
  );
});
