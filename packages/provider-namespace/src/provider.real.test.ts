/**
 * NamespaceProvider on a real kube-apiserver (the real tier; needs KUBEBUILDER_ASSETS, else one skipped test says
 * why): the server's own namespace behaviour is the source of truth. It labels every namespace with
 * `kubernetes.io/metadata.name` (so a selector can leave one out by name), and a deleted namespace stays `Terminating`
 * (no namespace controller runs here, as in a cluster whose finalizers are slow): the member goes at once.
 */
import {
  controllerManagedBy,
  newCluster,
  newManager,
  silentLogger,
  type KubeObject,
  type Manager,
  type Request,
} from '@multicluster-runtime/core';
import type { KubeCluster } from '@multicluster-runtime/core/cluster';
import { kubeconfigOf } from '@multicluster-runtime/core/testing';
import { assetsDirFromEnv, startTestEnvironment, type TestEnvironment } from '@multicluster-runtime/envtest/real';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { NamespaceProvider, NamespaceScopeError } from './index.js';

const configMaps = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const namespaces = { apiVersion: 'v1', kind: 'Namespace' } as const;

if (!assetsDirFromEnv()) {
  test.skip('real tier skipped: KUBEBUILDER_ASSETS is not set (tools/kube-apiserver/build.sh builds the binaries)', () => {});
} else {
  describe('NamespaceProvider on a real kube-apiserver', () => {
    let env: TestEnvironment;
    let admin: KubeCluster;
    let mgr: Manager;
    const stop = new AbortController();
    let running: Promise<void>;
    const seen: Request[] = [];
    const state = (name: string) =>
      mgr.getCluster(name).then(
        () => 'engaged',
        () => 'absent',
      );

    beforeAll(async () => {
      env = await startTestEnvironment();
      admin = newCluster(kubeconfigOf(env.kubeconfig()), { name: 'admin' });
      for (const name of ['team-a', 'team-b', 'excluded']) {
        await admin.apiReader.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { fleet: 'on' } } });
      }
      mgr = newManager(
        kubeconfigOf(env.kubeconfig()),
        new NamespaceProvider({ labelSelector: 'fleet=on,kubernetes.io/metadata.name!=excluded' }),
        { logger: silentLogger },
      );
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
      await admin?.close();
      await env?.stop();
    }, 60_000);

    test('selected namespaces are members, reconciled with their own objects; one left out by name is not', async () => {
      await expect.poll(() => state('team-a')).toBe('engaged');
      await expect.poll(() => state('team-b')).toBe('engaged');
      for (const ns of ['team-a', 'team-b', 'excluded']) {
        await admin.apiReader.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ns, name: `in-${ns}` } });
      }
      await expect
        .poll(() =>
          [...new Set(seen.filter((r) => r.name.startsWith('in-')).map((r) => `${r.clusterName} ${r.namespace}/${r.name}`))].sort(),
        )
        .toEqual(['team-a team-a/in-team-a', 'team-b team-b/in-team-b']);
      expect(await state('excluded')).toBe('absent');
    });

    test("a member's writes stay in its namespace", async () => {
      const a = await mgr.getCluster('team-a');
      await expect(
        a.client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'team-b', name: 'intruder' } }),
      ).rejects.toBeInstanceOf(NamespaceScopeError);
      const created = await a.client.create<KubeObject>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'own' } });
      expect(created.metadata.namespace).toBe('team-a');
      expect((await admin.apiReader.get(configMaps, { namespace: 'team-a', name: 'own' })).metadata.uid).toBe(created.metadata.uid);
    });

    test('a deleted namespace that stays Terminating is disengaged at once', async () => {
      await admin.apiReader.delete(namespaces, { name: 'team-b' });
      const ns = await admin.apiReader.get<{ status?: { phase?: string } } & { metadata: object }>(namespaces, { name: 'team-b' });
      expect(ns.status?.phase).toBe('Terminating'); // the server keeps it: the `kubernetes` finalizer is never removed here
      await expect.poll(() => state('team-b')).toBe('absent');
      expect(await state('team-a')).toBe('engaged');
    });
  });
}
