/**
 * The real tier (needs KUBEBUILDER_ASSETS, else one skipped test says why): a real kube-apiserver is the host, whose
 * kubeconfig Secrets make one kind of member, and a kubeconfig file another; MultiProvider composes both under one
 * manager, whose controller reconciles ConfigMaps in each under the composed names.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { controllerManagedBy, newCluster, newManager, silentLogger } from '@multicluster-runtime/core';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { assetsDirFromEnv, startTestEnvironment, type TestEnvironment } from '@multicluster-runtime/envtest/real';
import { KubeconfigFileProvider, KubeconfigSecretProvider } from '@multicluster-runtime/provider-kubeconfig';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MultiProvider } from './multi-provider.js';

const assetsDir = assetsDirFromEnv();
const configMap = { apiVersion: 'v1', kind: 'ConfigMap' };

function configOf(kubeconfig: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  return kc;
}

if (!assetsDir) {
  test.skip('real tier skipped: KUBEBUILDER_ASSETS is not set (tools/kube-apiserver/build.sh builds the binaries)', () => {});
} else {
  describe('MultiProvider on a real kube-apiserver host', () => {
    let env: TestEnvironment;
    let members: ApiServer[];
    let dir: string;

    beforeAll(async () => {
      [env, dir, ...members] = await Promise.all([
        startTestEnvironment(),
        mkdtemp(join(tmpdir(), 'mcr-multi-real-')),
        startApiServer({ name: 'from-secret' }),
        startApiServer({ name: 'from-file' }),
      ] as const);
      for (const m of members) {
        const c = newCluster(configOf(m.kubeconfig()));
        await c.apiReader.create({ ...configMap, metadata: { namespace: 'default', name: `in-${m.name}` } });
        await c.close();
      }
    }, 120_000);

    afterAll(async () => {
      await Promise.all(members.map((m) => m.close()));
      await env?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    }, 60_000);

    test('one controller reconciles the members of both providers under composed names', async () => {
      const [fromSecret, fromFile] = members as [ApiServer, ApiServer];
      const host = newCluster(configOf(env.kubeconfig()), { name: 'host-admin' });
      await host.apiReader.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { namespace: 'default', name: 'alpha', labels: { 'sigs.k8s.io/multicluster-runtime-kubeconfig': 'true' } },
        data: { kubeconfig: Buffer.from(fromSecret.kubeconfig()).toString('base64') },
      });
      await host.close();
      const file = join(dir, 'beta.kubeconfig');
      await writeFile(file, fromFile.kubeconfig({ contextName: 'beta' }));

      const fleet = new MultiProvider();
      await fleet.add('secrets', new KubeconfigSecretProvider({ namespace: 'default', retry: { initialMs: 100, maxMs: 1_000 } }));
      await fleet.add('files', new KubeconfigFileProvider({ paths: [join(dir, '*.kubeconfig')] }));
      const mgr = newManager(configOf(env.kubeconfig()), fleet, { logger: silentLogger });
      const seen = new Set<string>();
      controllerManagedBy(mgr)
        .named('configmaps')
        .for(configMap)
        .complete((req) => {
          seen.add(`${req.clusterName}/${req.name}`);
          return Promise.resolve();
        });
      const stop = new AbortController();
      const done = mgr.start(stop.signal);
      try {
        const alpha = 'secrets#alpha';
        const beta = `files#${file}+beta`;
        await expect
          .poll(
            () =>
              mgr
                .engagedClusters()
                .filter((n) => n !== '')
                .sort(),
            { timeout: 30_000 },
          )
          .toEqual([beta, alpha].sort());
        await expect
          .poll(() => [...seen].sort(), { timeout: 30_000 })
          .toEqual(expect.arrayContaining([`${alpha}/in-from-secret`, `${beta}/in-from-file`]));
        expect(fleet.status(alpha)?.state).toBe('engaged');
      } finally {
        stop.abort();
        await done;
      }
    }, 120_000);
  });
}
