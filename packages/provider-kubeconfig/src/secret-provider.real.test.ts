/**
 * The Secret provider against a real kube-apiserver with RBAC (the real tier; needs KUBEBUILDER_ASSETS, else one
 * skipped test says why). It proves the least-privilege claim: with `watch: 'namespace'` a user that may only list
 * and watch Secrets in the fleet namespace runs the provider, while sharing the host cache needs cluster-wide access.
 */
import { newCluster } from '@multicluster-runtime/core';
import { loadUntrustedKubeconfig } from '@multicluster-runtime/core/kubeconfig';
import type { KubeCluster } from '@multicluster-runtime/core/cluster';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { assetsDirFromEnv, startTestEnvironment, type TestEnvironment } from '@multicluster-runtime/envtest/real';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RecordingAware, runningCluster } from './fleet.test-util.js';
import { DEFAULT_KUBECONFIG_SECRET_LABEL, KubeconfigSecretProvider, type KubeconfigSecretProviderOptions } from './secret-provider.js';

const assetsDir = assetsDirFromEnv();
const NS = 'fleet';
const readerToken = 'fleet-reader-token-4f1c2a';
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

if (!assetsDir) {
  test.skip('real tier skipped: KUBEBUILDER_ASSETS is not set (tools/kube-apiserver/build.sh builds the binaries)', () => {});
} else {
  describe('KubeconfigSecretProvider on a real kube-apiserver with RBAC', () => {
    let env: TestEnvironment;
    let member: ApiServer;
    let admin: KubeCluster;
    let reader: KubeCluster;
    const stops: Array<() => Promise<void>> = [];

    beforeAll(async () => {
      [env, member] = await Promise.all([
        startTestEnvironment({ tokens: [{ token: readerToken, user: 'fleet-reader' }] }),
        startApiServer(),
      ]);
      const a = await runningCluster(env);
      admin = a.cluster;
      stops.push(a.stop);
      await admin.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
      await admin.client.create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'kubeconfig-reader', namespace: NS },
        rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['list', 'watch'] }],
      });
      await admin.client.create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'kubeconfig-reader', namespace: NS },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'kubeconfig-reader' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'fleet-reader' }],
      });
      reader = newCluster(loadUntrustedKubeconfig(env.kubeconfig({ user: { token: readerToken } })), { name: 'host-as-reader' });
      const ac = new AbortController();
      const done = reader.start(ac.signal);
      stops.push(async () => {
        ac.abort();
        await done;
      });
      await admin.client.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'member', namespace: NS, labels: { [DEFAULT_KUBECONFIG_SECRET_LABEL]: 'true' } },
        data: { kubeconfig: b64(member.kubeconfig()) },
      });
    }, 120_000);

    afterAll(async () => {
      for (const stop of stops.reverse()) await stop();
      await member?.close();
      await env?.stop();
    }, 60_000);

    function start(options: Partial<KubeconfigSecretProviderOptions>) {
      const provider = new KubeconfigSecretProvider({ namespace: NS, hostCluster: reader, ...options });
      const aware = new RecordingAware();
      const ac = new AbortController();
      const done = provider.start(ac.signal, aware.context());
      stops.push(async () => {
        ac.abort();
        await done;
      });
      return { provider, aware };
    }

    test('watching the namespace needs only list and watch on its Secrets, and follows label removal', async () => {
      const { aware } = start({ watch: 'namespace' });
      await expect.poll(() => aware.live(), { timeout: 20_000 }).toEqual(['member']);
      const engaged = aware.current('member')!;

      // The server-side selector turns a removed label into a DELETED event.
      await admin.client.patch(
        { apiVersion: 'v1', kind: 'Secret' },
        { namespace: NS, name: 'member' },
        {
          type: 'merge',
          body: { metadata: { labels: { [DEFAULT_KUBECONFIG_SECRET_LABEL]: null } } },
        },
      );
      await expect.poll(() => engaged.signal.aborted, { timeout: 20_000 }).toBe(true);
      await admin.client.patch(
        { apiVersion: 'v1', kind: 'Secret' },
        { namespace: NS, name: 'member' },
        {
          type: 'merge',
          body: { metadata: { labels: { [DEFAULT_KUBECONFIG_SECRET_LABEL]: 'true' } } },
        },
      );
      await expect.poll(() => aware.live(), { timeout: 20_000 }).toEqual(['member']);
    });

    test('sharing the host cache needs cluster-wide Secret access', async () => {
      const { aware } = start({ watch: 'host-cache' });
      const informer = await reader.cache.getInformer({ apiVersion: 'v1', kind: 'Secret' });
      await expect.poll(() => (informer.status().lastError?.cause as { code?: number } | undefined)?.code, { timeout: 20_000 }).toBe(403);
      expect(informer.status().lastError?.message).toContain('at the cluster scope');
      expect(aware.live()).toEqual([]);
    });
  });
}
