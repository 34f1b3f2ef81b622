/**
 * MiloProvider's project discovery on a real kube-apiserver (the real tier; needs KUBEBUILDER_ASSETS, else one skipped
 * test says why): Milo's ProjectControlPlane CRD installed on it, objects written and their conditions flipped by the
 * same fixtures the fake Milo uses, so the server's own watch, status and label-selector behaviour decides what is
 * engaged. Every control plane is this same server (a real one cannot serve Milo's per-project paths, which is why
 * project mode stays on the fake).
 */
import { controllerManagedBy, newManager, silentLogger, type Request } from '@multicluster-runtime/core';
import type { MultiClusterManager } from '@multicluster-runtime/core/manager';
import { kubeconfigOf } from '@multicluster-runtime/core/testing';
import { MiloFixtures, projectControlPlaneCrd, projectCrd } from '@multicluster-runtime/envtest/milo';
import { assetsDirFromEnv, startTestEnvironment, type TestEnvironment } from '@multicluster-runtime/envtest/real';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MiloProvider } from './index.js';

const configMaps = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

if (!assetsDirFromEnv()) {
  test.skip('real tier skipped: KUBEBUILDER_ASSETS is not set (tools/kube-apiserver/build.sh builds the binaries)', () => {});
} else {
  describe('MiloProvider (projectControlPlane mode) on a real kube-apiserver', () => {
    let env: TestEnvironment;
    let milo: MiloFixtures;
    let mgr: MultiClusterManager;
    let provider: MiloProvider;
    const stop = new AbortController();
    let running: Promise<void>;
    const seen: Request[] = [];
    const engaged = () => [...mgr.engagedClusters()].sort();

    beforeAll(async () => {
      env = await startTestEnvironment({ crds: [projectCrd, projectControlPlaneCrd] });
      milo = new MiloFixtures(env);
      provider = new MiloProvider({
        mode: 'projectControlPlane',
        internalAddress: () => env.url,
        labelSelector: { fleet: 'on' },
        retry: { initialMs: 100, maxMs: 500 },
      });
      mgr = newManager(kubeconfigOf(env.kubeconfig()), provider, { logger: silentLogger });
      controllerManagedBy(mgr)
        .for(configMaps)
        .complete(async (req) => {
          seen.push(req);
        });
      running = mgr.start(stop.signal);
    }, 120_000);
    afterAll(async () => {
      stop.abort();
      await running;
      milo?.close();
      await env?.stop();
    }, 60_000);

    test('a ready, selected control plane is engaged; one not ready or not selected is not, and says why', async () => {
      await milo.createProjectControlPlane('alpha', { ready: true, labels: { fleet: 'on' } });
      await milo.createProjectControlPlane('beta', { ready: false, labels: { fleet: 'on' } });
      await milo.createProjectControlPlane('gamma', { ready: true, labels: { fleet: 'off' } });
      await expect.poll(engaged, { timeout: 15_000 }).toEqual(['alpha']);
      await expect
        .poll(() => provider.status('beta'), { timeout: 15_000 })
        .toMatchObject({ state: 'notReady', reason: "the project's ControlPlaneReady condition is not True" });
      expect(provider.status('gamma')).toBeUndefined();
    });

    test("a member's client reaches its control plane, and its objects are reconciled under its name", async () => {
      await expect.poll(engaged, { timeout: 15_000 }).toContain('alpha');
      const alpha = await mgr.getCluster('alpha');
      await alpha.client.create({ ...configMaps, metadata: { namespace: 'default', name: 'from-alpha' }, data: { a: '1' } });
      await expect.poll(() => seen.some((r) => r.clusterName === 'alpha' && r.name === 'from-alpha'), { timeout: 15_000 }).toBe(true);
    });

    test('readiness, labels and deletion move members in and out as the server reports them', async () => {
      await milo.setControlPlaneReady('beta', true);
      await expect.poll(engaged, { timeout: 15_000 }).toEqual(['alpha', 'beta']);
      await milo.labelProjectControlPlane('alpha', { fleet: 'off' });
      await expect.poll(engaged, { timeout: 15_000 }).toEqual(['beta']);
      await milo.labelProjectControlPlane('gamma', { fleet: 'on' });
      await expect.poll(engaged, { timeout: 15_000 }).toEqual(['beta', 'gamma']);
      await milo.setControlPlaneReady('gamma', false);
      await milo.deleteProjectControlPlane('beta');
      await expect.poll(engaged, { timeout: 15_000 }).toEqual([]);
    });
  });
}
