/**
 * The file provider with a real kube-apiserver as the member (the real tier; needs KUBEBUILDER_ASSETS, else one
 * skipped test says why): the kubeconfig the environment writes is engaged from a watched folder, the engaged
 * cluster reads through RBAC as the token's user, a rotated token re-engages it, and deleting the file disengages it.
 */
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assetsDirFromEnv, startTestEnvironment, type TestEnvironment } from '@multicluster-runtime/envtest/real';
import { newCluster } from '@multicluster-runtime/core';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RecordingAware } from './fleet.test-util.js';
import { KubeconfigFileProvider } from './file-provider.js';

const assetsDir = assetsDirFromEnv();

if (!assetsDir) {
  test.skip('real tier skipped: KUBEBUILDER_ASSETS is not set (tools/kube-apiserver/build.sh builds the binaries)', () => {});
} else {
  describe('KubeconfigFileProvider with a real kube-apiserver as the member', () => {
    let env: TestEnvironment;
    let dir: string;

    beforeAll(async () => {
      [env, dir] = await Promise.all([
        startTestEnvironment({
          tokens: [
            { token: 'first-token-8c1d', user: 'fleet-viewer' },
            { token: 'second-token-2f7a', user: 'fleet-viewer' },
          ],
        }),
        mkdtemp(join(tmpdir(), 'mcr-file-real-')),
      ]);
      const kc = new KubeConfig();
      kc.loadFromString(env.kubeconfig());
      const admin = newCluster(kc, { name: 'admin' });
      const rbac = { apiVersion: 'rbac.authorization.k8s.io/v1' };
      await admin.apiReader.create({
        ...rbac,
        kind: 'ClusterRole',
        metadata: { name: 'fleet-viewer' },
        rules: [{ apiGroups: [''], resources: ['namespaces', 'configmaps'], verbs: ['get', 'list', 'watch'] }],
      });
      await admin.apiReader.create({
        ...rbac,
        kind: 'ClusterRoleBinding',
        metadata: { name: 'fleet-viewer' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'fleet-viewer' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'fleet-viewer' }],
      });
      await admin.apiReader.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'identity' } });
      await admin.close();
    }, 120_000);

    afterAll(async () => {
      await env?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    }, 60_000);

    test('engages the file, follows a rotated token and disengages when the file goes', async () => {
      const file = join(dir, 'member.kubeconfig');
      const put = async (token: string) => {
        await writeFile(`${file}.tmp`, env.kubeconfig({ user: { token }, contextName: 'member' }));
        await rename(`${file}.tmp`, file);
      };
      await put('first-token-8c1d');
      const provider = new KubeconfigFileProvider({ paths: [join(dir, '*.kubeconfig')], retry: { initialMs: 100, maxMs: 1_000 } });
      const aware = new RecordingAware();
      const ac = new AbortController();
      const done = provider.start(ac.signal, aware.context());
      const name = `${file}+member`;
      try {
        await expect.poll(() => aware.live(), { timeout: 30_000 }).toEqual([name]);
        const first = aware.current(name)!;
        const cm = await first.cluster.apiReader.get({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default', name: 'identity' });
        expect(cm.metadata.name).toBe('identity');
        // Only what the role grants: the member is reached as the token's user.
        await expect(first.cluster.apiReader.list({ apiVersion: 'v1', kind: 'Secret' }, { namespace: 'default' })).rejects.toMatchObject({
          code: 403,
        });

        await put('second-token-2f7a');
        await expect.poll(() => first.signal.aborted, { timeout: 30_000 }).toBe(true);
        await expect.poll(() => aware.live(), { timeout: 30_000 }).toEqual([name]);
        expect(aware.current(name)).not.toBe(first);

        await rm(file);
        await expect.poll(() => aware.live(), { timeout: 30_000 }).toEqual([]);
      } finally {
        ac.abort();
        await done;
      }
    }, 120_000);
  });
}
