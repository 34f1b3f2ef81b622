/**
 * The real tier (needs KUBEBUILDER_ASSETS and Go, else one skipped test says why): a real kube-apiserver is the hub,
 * with the ClusterProfile CRD from sigs.k8s.io/cluster-inventory-api installed from its file, and is also the member
 * its profile describes (as in upstream's single-cluster e2e). The real `secretreader` plugin reads the member's token
 * from a Secret on the hub under its own least-privilege identity (RBAC: get Secrets in the fleet namespace only), as
 * its README asks; the member is then reached with that token alone.
 */
import { join } from 'node:path';
import { newManager, silentLogger, type KubeObject } from '@multicluster-runtime/core';
import { assetsDirFromEnv, startTestEnvironment, type TestEnvironment } from '@multicluster-runtime/envtest/real';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { ClusterProfileProvider, clusterProfileKind, execExtension } from './index.js';
import {
  adminClient,
  clusterEntry,
  goMissing,
  inventoryAssets,
  putProfile,
  type InventoryAssets,
  secretreaderAccess,
} from './inventory-fixtures.test-util.js';

const assetsDir = assetsDirFromEnv();
const go = await goMissing();
const ns = 'fleet';
const readerToken = 'secretreader-token-7d2e';
const consumerToken = 'inventory-consumer-token-91ab';

if (!assetsDir || go) {
  test.skip(`real tier skipped: ${go ?? 'KUBEBUILDER_ASSETS is not set (tools/kube-apiserver/build.sh builds the binaries)'}`, () => {});
} else {
  describe('ClusterProfileProvider on a real kube-apiserver', () => {
    let assets: InventoryAssets;
    let env: TestEnvironment;
    let dir: string;
    let admin: ReturnType<typeof adminClient>;

    beforeAll(async () => {
      assets = await inventoryAssets();
      env = await startTestEnvironment({
        crdPaths: [join(assets.secretreader, '..', 'crds')],
        tokens: [
          { token: readerToken, user: 'secretreader' },
          { token: consumerToken, user: 'inventory-consumer' },
        ],
      });
      dir = await mkdtemp(join(tmpdir(), 'mcr-inventory-real-'));
      admin = adminClient(env.kubeconfig(), 'hub-admin');
      const rbac = (kind: string, body: Record<string, unknown>): KubeObject =>
        ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind, ...body }) as KubeObject;
      await admin.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      await admin.client.create(
        rbac('Role', {
          metadata: { namespace: ns, name: 'secretreader' },
          rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
        }),
      );
      await admin.client.create(
        rbac('RoleBinding', {
          metadata: { namespace: ns, name: 'secretreader' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'secretreader' },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'secretreader' }],
        }),
      );
      // What the member grants the consumer: reading ConfigMaps and Namespaces (the probe reads discovery only).
      await admin.client.create(
        rbac('ClusterRole', {
          metadata: { name: 'inventory-consumer' },
          rules: [{ apiGroups: [''], resources: ['configmaps', 'namespaces'], verbs: ['get', 'list', 'watch'] }],
        }),
      );
      await admin.client.create(
        rbac('ClusterRoleBinding', {
          metadata: { name: 'inventory-consumer' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'inventory-consumer' },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'inventory-consumer' }],
        }),
      );
      await admin.client.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { namespace: ns, name: 'self' },
        data: { token: Buffer.from(consumerToken).toString('base64') },
      });
      await admin.client.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: 'default', name: 'identity' },
        data: { member: 'self' },
      });
      await env.writeKubeconfig(join(dir, 'secretreader.kubeconfig'), { user: { token: readerToken }, namespace: ns });
    }, 180_000);

    afterAll(async () => {
      await admin?.close();
      await env?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    }, 60_000);

    test('the real CRD validates what the cluster manager writes, and the member is reached through the real plugin', async () => {
      // Schema: a list under `extension` is refused (the CRD types it as an object), so additional-args cannot be
      // published through this API version; a map (additional-envs, the exec extension) is accepted.
      const listExtension = putProfile(admin.client, ns, 'invalid', {
        accessProviders: [
          {
            name: 'secretreader',
            cluster: clusterEntry(env.url, env.caPem, [
              { name: 'clusterprofiles.multicluster.x-k8s.io/exec/additional-args', extension: ['--a'] },
            ]),
          },
        ],
      });
      await expect(listExtension).rejects.toMatchObject({ code: 422 });

      await putProfile(admin.client, ns, 'self', {
        accessProviders: [
          {
            name: 'secretreader',
            cluster: clusterEntry(env.url, env.caPem, [{ name: execExtension, extension: { clusterName: 'self' } }]),
          },
        ],
      });
      const hub = new KubeConfig();
      hub.loadFromString(env.kubeconfig());
      const provider = new ClusterProfileProvider({
        namespace: ns,
        accessConfig: secretreaderAccess(assets.secretreader, join(dir, 'secretreader.kubeconfig')),
        retry: { initialMs: 100, maxMs: 1_000 },
      });
      const mgr = newManager(hub, provider, { logger: silentLogger });
      const stop = new AbortController();
      const done = mgr.start(stop.signal);
      try {
        await vi.waitFor(() => expect(provider.status('fleet/self')?.state).toBe('engaged'), { timeout: 30_000 });
        const member = await mgr.getCluster('fleet/self');
        const cm = await member.client.get({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default', name: 'identity' });
        expect(cm['data']).toEqual({ member: 'self' });
        // The member is reached as the consumer, not as the hub's admin: RBAC refuses what it was not granted.
        await expect(member.apiReader.list({ apiVersion: 'v1', kind: 'Secret' }, { namespace: ns })).rejects.toMatchObject({ code: 403 });
        await admin.client.delete(clusterProfileKind, { namespace: ns, name: 'self' });
        await vi.waitFor(() => expect(mgr.engagedClusters()).toEqual([]), { timeout: 30_000 });
      } finally {
        stop.abort();
        await done;
      }
    }, 120_000);
  });
}
