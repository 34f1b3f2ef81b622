/**
 * Per-cluster event recorders through the virtual workspace: an export that claims Events, bound by a workspace that
 * accepts the claim; a member's recorder writes events.k8s.io/v1 Events into that logical cluster through the
 * virtual workspace (as upstream's per-cluster recorders do), about the member's own objects, and into no other.
 */
import { KubeConfig } from '@kubernetes/client-node';
import type { Aware, Cluster, KubeObject } from '@multicluster-runtime/core';
import { silentLogger } from '@multicluster-runtime/core';
import { ApiClient, DiscoveryRESTMapper, Transport } from '@multicluster-runtime/core/client';
import { noopMetrics } from '@multicluster-runtime/core/metrics';
import type { KcpServer, KcpWorkspace } from '@multicluster-runtime/envtest/kcp';
import { startKcpServer } from '@multicluster-runtime/envtest/kcp';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ApiExportProvider } from './provider.js';
import { THING, thingSchema } from './thing-schema.test-util.js';

const EVENTS = { apiVersion: 'events.k8s.io/v1', kind: 'Event' } as const;

function kubeConfig(text: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(text);
  return kc;
}

let kcp: KcpServer;
let providerWs: KcpWorkspace;
let a: KcpWorkspace;
let b: KcpWorkspace;

beforeAll(async () => {
  kcp = await startKcpServer({ shards: ['one', 'two'] });
  providerWs = await kcp.createWorkspace('root:provider');
  a = await kcp.createWorkspace('root:events-a', { shard: 'one' });
  b = await kcp.createWorkspace('root:events-b', { shard: 'two' });
  const claim = { group: 'events.k8s.io', resource: 'events' };
  await kcp.createExport(providerWs, { name: 'example.com', schemas: [thingSchema], permissionClaims: [claim] });
  for (const ws of [a, b]) await kcp.bind(ws, { exportPath: 'root:provider', exportName: 'example.com', acceptClaims: [claim] });
});
afterAll(async () => {
  await kcp?.close();
});

test("a member's event recorder writes Events into its own logical cluster through the virtual workspace", async () => {
  const provider = new ApiExportProvider({
    endpointSliceName: 'example.com',
    exportConfig: kubeConfig(kcp.kubeconfig(providerWs)),
    retry: { initialMs: 50, maxMs: 200 },
  });
  const engaged = new Map<string, Cluster>();
  const aware: Aware = {
    engage: (_signal, name, cluster) => {
      engaged.set(name, cluster);
      return Promise.resolve();
    },
  };
  const stop = new AbortController();
  const done = provider.start(stop.signal, { aware, logger: silentLogger, metrics: noopMetrics });
  const transport = Transport.forConfig(kubeConfig(kcp.kubeconfig(a)));
  const adminA = new ApiClient(transport, new DiscoveryRESTMapper(transport));
  const transportB = Transport.forConfig(kubeConfig(kcp.kubeconfig(b)));
  const adminB = new ApiClient(transportB, new DiscoveryRESTMapper(transportB));
  try {
    await expect.poll(() => [...engaged.keys()].sort(), { timeout: 10_000 }).toEqual([a.name, b.name].sort());
    const member = engaged.get(a.name)!;
    const created = await member.client.create<KubeObject>({ ...THING, metadata: { name: 'noisy', namespace: 'default' } });
    member.getEventRecorderFor('example.com/controller').event(created, 'Normal', 'Seen', 'a thing was seen');
    await expect
      .poll(
        async () =>
          (await adminA.list<KubeObject & { reason?: string; note?: string }>(EVENTS, { namespace: 'default' })).items.map(
            (e) => `${e.reason}: ${e.note}`,
          ),
        {
          timeout: 10_000,
        },
      )
      .toEqual(['Seen: a thing was seen']);
    expect((await adminB.list(EVENTS, { namespace: 'default' })).items).toEqual([]);
  } finally {
    stop.abort();
    await done;
    await Promise.all([transport.close(), transportB.close()]);
  }
}, 60_000);
