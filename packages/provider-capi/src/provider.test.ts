import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { ClusterNotFoundError, newCluster, newManager, silentLogger } from '@multicluster-runtime/core';
import type { Client } from '@multicluster-runtime/core';
import type { MultiClusterManager } from '@multicluster-runtime/core/manager';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { CapiProvider, type CapiProviderOptions } from './index.js';
import { capiCluster, capiClusterCrd, goMissing, kubeconfigSecret, markInitialized } from './capi-fixtures.test-util.js';

const missing = await goMissing();

const ns = 'fleet';
const configMap = { apiVersion: 'v1', kind: 'ConfigMap' };
let host: ApiServer;
let workloads: ApiServer[];
let hostClient: Client;
let dir: string;
const stops: Array<{ stop: AbortController; done: Promise<void> }> = [];

beforeAll(async () => {
  if (missing) return;
  dir = mkdtempSync(join(tmpdir(), 'mcr-capi-'));
  [host, ...workloads] = await Promise.all([startApiServer({ name: 'mgmt' }), startApiServer(), startApiServer()]);
  const kc = new KubeConfig();
  kc.loadFromString(host.kubeconfig());
  hostClient = newCluster(kc).apiReader;
  await hostClient.create(await capiClusterCrd());
  await hostClient.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await vi.waitFor(() => hostClient.list({ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster' }), { timeout: 10_000 });
  for (const [i, w] of workloads.entries()) {
    const wk = new KubeConfig();
    wk.loadFromString(w.kubeconfig());
    await newCluster(wk).client.create({
      ...configMap,
      metadata: { namespace: 'default', name: 'identity' },
      data: { workload: String(i) },
    });
  }
});
afterEach(async () => {
  if (missing) return;
  for (const s of stops.splice(0)) {
    s.stop.abort();
    await s.done;
  }
  const clusters = await hostClient.list({ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster' }, { namespace: ns });
  for (const c of clusters.items)
    await hostClient.delete({ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster' }, { namespace: ns, name: c.metadata.name! });
  const secrets = await hostClient.list({ apiVersion: 'v1', kind: 'Secret' }, { namespace: ns });
  for (const s of secrets.items) await hostClient.delete({ apiVersion: 'v1', kind: 'Secret' }, { namespace: ns, name: s.metadata.name! });
});
afterAll(async () => {
  if (missing) return;
  await Promise.all([host, ...workloads].map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

function startManager(options: CapiProviderOptions = {}): { mgr: MultiClusterManager; provider: CapiProvider } {
  const kc = new KubeConfig();
  kc.loadFromString(host.kubeconfig());
  const provider = new CapiProvider({ retry: { initialMs: 100, maxMs: 500 }, ...options });
  const mgr = newManager(kc, provider, { logger: silentLogger });
  const stop = new AbortController();
  stops.push({ stop, done: mgr.start(stop.signal) });
  return { mgr, provider };
}

async function workloadOf(mgr: MultiClusterManager, name: string): Promise<string | undefined> {
  const cluster = await mgr.getCluster(name);
  const cm = await cluster.client.get(configMap, { namespace: 'default', name: 'identity' });
  return (cm['data'] as Record<string, string>)['workload'];
}

describe.skipIf(missing !== undefined)('CapiProvider (on the real Cluster CRD from sigs.k8s.io/cluster-api)', () => {
  test('engages a Cluster once its control plane is initialized, named namespace/name', async () => {
    const { mgr, provider } = startManager();
    const cluster = capiCluster(ns, 'w1');
    await hostClient.create(cluster);
    await hostClient.create(kubeconfigSecret(ns, 'w1', workloads[0]!.kubeconfig()));
    // Provisioning: a Secret exists but the control plane is not initialized yet. A ready control cluster shows the
    // provider has processed both by the time it is engaged.
    const control = capiCluster(ns, 'control');
    await hostClient.create(control);
    await hostClient.create(kubeconfigSecret(ns, 'control', workloads[1]!.kubeconfig()));
    await markInitialized(hostClient, control);
    await vi.waitFor(() => expect(mgr.engagedClusters()).toContain('fleet/control'), { timeout: 10_000 });
    expect(mgr.engagedClusters()).not.toContain('fleet/w1');
    // Known but not ready is told apart from unknown.
    expect(provider.status('fleet/w1')).toMatchObject({ state: 'notReady', reason: 'the control plane is not initialized yet' });
    expect(provider.status('fleet/never-heard-of')).toBeUndefined();
    await markInitialized(hostClient, cluster);
    await vi.waitFor(() => expect(mgr.engagedClusters()).toContain('fleet/w1'), { timeout: 10_000 });
    expect(await workloadOf(mgr, 'fleet/w1')).toBe('0');
  });

  test('re-engages when the kubeconfig Secret rotates, and disengages when the Cluster is deleted', async () => {
    const { mgr } = startManager();
    const cluster = capiCluster(ns, 'w2');
    await hostClient.create(cluster);
    await hostClient.create(kubeconfigSecret(ns, 'w2', workloads[0]!.kubeconfig()));
    await markInitialized(hostClient, cluster);
    await vi.waitFor(async () => expect(await workloadOf(mgr, 'fleet/w2')).toBe('0'), { timeout: 10_000 });
    const first = await mgr.getCluster('fleet/w2');

    const rotated = kubeconfigSecret(ns, 'w2', workloads[1]!.kubeconfig());
    const current = await hostClient.get({ apiVersion: 'v1', kind: 'Secret' }, { namespace: ns, name: 'w2-kubeconfig' });
    await hostClient.update({ ...current, data: rotated['data'] });
    await vi.waitFor(async () => expect(await workloadOf(mgr, 'fleet/w2')).toBe('1'), { timeout: 10_000 });
    expect(await mgr.getCluster('fleet/w2')).not.toBe(first);

    await hostClient.delete({ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster' }, { namespace: ns, name: 'w2' });
    await vi.waitFor(() => expect(mgr.engagedClusters()).not.toContain('fleet/w2'), { timeout: 10_000 });
    await expect(mgr.getCluster('fleet/w2')).rejects.toBeInstanceOf(ClusterNotFoundError);
  });

  test('a missing, broken or hostile Secret affects only its cluster and runs nothing', async () => {
    const marker = join(dir, 'exec-ran');
    const plugin = join(dir, 'plugin.sh');
    writeFileSync(plugin, `#!/bin/sh\ntouch '${marker}'\n`);
    chmodSync(plugin, 0o755);
    const hostile = workloads[1]!
      .kubeconfig()
      .replace(
        /user:\n(\s+)client-certificate-data:.*\n\s+client-key-data:.*\n/,
        (_m, indent: string) =>
          `user:\n${indent}exec:\n${indent}  apiVersion: client.authentication.k8s.io/v1\n${indent}  command: ${plugin}\n`,
      );
    expect(hostile).toContain('exec:');

    const { mgr, provider } = startManager();
    for (const name of ['good', 'nosecret', 'broken', 'hostile']) {
      const c = capiCluster(ns, name);
      await hostClient.create(c);
      await markInitialized(hostClient, c);
    }
    await hostClient.create(kubeconfigSecret(ns, 'good', workloads[0]!.kubeconfig()));
    await hostClient.create(kubeconfigSecret(ns, 'broken', 'clusters: [unclosed'));
    await hostClient.create(kubeconfigSecret(ns, 'hostile', hostile));
    await vi.waitFor(
      () => {
        expect(mgr.engagedClusters()).toEqual(['fleet/good']);
        expect(provider.status('fleet/nosecret')?.reason).toMatch(/nosecret-kubeconfig not found/);
        expect(provider.status('fleet/broken')?.state).toBe('invalid');
        expect(provider.status('fleet/hostile')?.state).toBe('rejected');
      },
      { timeout: 10_000 },
    );
    expect(existsSync(marker)).toBe(false);

    // The missing Secret appears later: the cluster comes up.
    await hostClient.create(kubeconfigSecret(ns, 'nosecret', workloads[1]!.kubeconfig()));
    await vi.waitFor(() => expect(mgr.engagedClusters()).toContain('fleet/nosecret'), { timeout: 10_000 });
  });

  test('watches v1beta1 Clusters when asked to', async () => {
    const { mgr } = startManager({ apiVersion: 'cluster.x-k8s.io/v1beta1' });
    const cluster = capiCluster(ns, 'old', 'cluster.x-k8s.io/v1beta1');
    await hostClient.create(cluster);
    await hostClient.create(kubeconfigSecret(ns, 'old', workloads[0]!.kubeconfig()));
    await markInitialized(hostClient, cluster);
    await vi.waitFor(() => expect(mgr.engagedClusters()).toContain('fleet/old'), { timeout: 10_000 });
  });

  test('a custom readiness check decides', async () => {
    const { mgr } = startManager({ isReady: (c) => (c.metadata.labels ?? {})['ready'] === 'yes' });
    await hostClient.create({ ...capiCluster(ns, 'labelled'), metadata: { namespace: ns, name: 'labelled', labels: { ready: 'yes' } } });
    await hostClient.create(kubeconfigSecret(ns, 'labelled', workloads[0]!.kubeconfig()));
    await vi.waitFor(() => expect(mgr.engagedClusters()).toContain('fleet/labelled'), { timeout: 10_000 });
  });
});
