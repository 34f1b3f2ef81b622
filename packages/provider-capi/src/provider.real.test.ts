/**
 * The real tier (needs KUBEBUILDER_ASSETS and Go, else one skipped test says why): a real kube-apiserver is the
 * management cluster, with the Cluster API `Cluster` CRD from the Go module sigs.k8s.io/cluster-api installed from its
 * file, so the real server validates, prunes and serves what CAPI would write; the workload cluster is in memory.
 */
import { join } from 'node:path';
import { newCluster, newManager, silentLogger, type Client } from '@multicluster-runtime/core';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { assetsDirFromEnv, startTestEnvironment, type TestEnvironment } from '@multicluster-runtime/envtest/real';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { capiCluster, capiCrdDir, goMissing, kubeconfigSecret, markInitialized } from './capi-fixtures.test-util.js';
import { CapiProvider } from './index.js';

const assetsDir = assetsDirFromEnv();
const go = await goMissing();
const ns = 'fleet';
const clusterKind = { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster' };

if (!assetsDir || go) {
  test.skip(`real tier skipped: ${go ?? 'KUBEBUILDER_ASSETS is not set (tools/kube-apiserver/build.sh builds the binaries)'}`, () => {});
} else {
  describe('CapiProvider on a real kube-apiserver with the real Cluster CRD', () => {
    let env: TestEnvironment;
    let workload: ApiServer;
    let admin: ReturnType<typeof newCluster>;
    let client: Client;

    beforeAll(async () => {
      const crds = await capiCrdDir();
      [env, workload] = await Promise.all([
        startTestEnvironment({ crdPaths: [join(crds, 'cluster.x-k8s.io_clusters.yaml')] }),
        startApiServer({ name: 'workload' }),
      ]);
      const kc = new KubeConfig();
      kc.loadFromString(env.kubeconfig());
      admin = newCluster(kc, { name: 'mgmt-admin' });
      client = admin.apiReader;
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      const w = newCluster(
        (() => {
          const k = new KubeConfig();
          k.loadFromString(workload.kubeconfig());
          return k;
        })(),
        { name: 'workload-admin' },
      );
      await w.apiReader.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: 'default', name: 'identity' },
        data: { who: 'w1' },
      });
      await w.close();
    }, 180_000);

    afterAll(async () => {
      await admin?.close();
      await workload?.close();
      await env?.stop();
    }, 60_000);

    test('engages a Cluster once the real server has its control plane initialized, and disengages it when deleted', async () => {
      const created = await client.create(capiCluster(ns, 'w1'));
      await client.create(kubeconfigSecret(ns, 'w1', workload.kubeconfig()));
      const hub = new KubeConfig();
      hub.loadFromString(env.kubeconfig());
      const provider = new CapiProvider({ namespace: ns, retry: { initialMs: 100, maxMs: 1_000 } });
      const mgr = newManager(hub, provider, { logger: silentLogger });
      const stop = new AbortController();
      const done = mgr.start(stop.signal);
      try {
        await vi.waitFor(() => expect(provider.status('fleet/w1')).toMatchObject({ state: 'notReady' }), { timeout: 30_000 });
        // The field the real schema keeps for v1beta2 (an unknown one would be pruned, and nothing would engage).
        await markInitialized(client, created);
        const stored = await client.get(clusterKind, { namespace: ns, name: 'w1' });
        expect(stored['status']).toMatchObject({ initialization: { controlPlaneInitialized: true } });
        await vi.waitFor(() => expect(mgr.engagedClusters()).toContain('fleet/w1'), { timeout: 30_000 });
        const member = await mgr.getCluster('fleet/w1');
        const cm = await member.client.get({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default', name: 'identity' });
        expect(cm['data']).toEqual({ who: 'w1' });
        await client.delete(clusterKind, { namespace: ns, name: 'w1' });
        await vi.waitFor(() => expect(mgr.engagedClusters()).not.toContain('fleet/w1'), { timeout: 30_000 });
      } finally {
        stop.abort();
        await done;
      }
    }, 120_000);
  });
}
