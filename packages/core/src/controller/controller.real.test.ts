/**
 * The controller and builder against a real kube-apiserver + etcd (the real tier; needs KUBEBUILDER_ASSETS, else one
 * skipped test says why): deduplication of rapid updates, owners reconciled from owned objects, a CRD installed
 * after engagement, and a disengaged cluster's watches closed, as the in-memory server shows in the faster tier.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { assetsDirFromEnv, startTestEnvironment, type TestEnvironment } from '@multicluster-runtime/envtest/real';
import { afterAll, afterEach, beforeAll, describe, expect, it, test } from 'vitest';
import { controllerManagedBy } from '../builder/builder.js';
import { newCluster, type KubeCluster } from '../cluster/cluster.js';
import { silentLogger } from '../log/logger.js';
import { newManager } from '../manager/manager.js';
import type { KubeObject } from '../object/types.js';
import type { ReconcileFunc, Request } from '../reconcile/types.js';
import { kind } from '../source/kind.js';
import { newController, type Controller } from './controller.js';
import { configMap, configMaps, forObject, openSockets, secrets } from './fleet.test-util.js';

const assetsDir = assetsDirFromEnv();
const key = (r: Request) => `${r.clusterName}/${r.namespace}/${r.name}`;

if (!assetsDir) {
  test.skip('real tier skipped: KUBEBUILDER_ASSETS is not set (tools/kube-apiserver/build.sh builds the binaries)', () => {});
} else {
  describe('controller on a real kube-apiserver', () => {
    let env: TestEnvironment;
    let cluster: KubeCluster;
    let kc: KubeConfig;
    const clusterStop = new AbortController();
    let clusterDone: Promise<void>;
    const stops: { stop: AbortController; done: Promise<void> }[] = [];
    let n = 0;
    const ns = () => `ctl-${process.pid}-${++n}`;

    beforeAll(async () => {
      env = await startTestEnvironment();
      kc = new KubeConfig();
      kc.loadFromString(env.kubeconfig());
      cluster = newCluster(kc, { name: 'real' });
      clusterDone = cluster.start(clusterStop.signal);
    }, 120_000);

    afterEach(async () => {
      for (const s of stops.splice(0)) {
        s.stop.abort();
        await s.done.catch(() => {});
      }
    });

    afterAll(async () => {
      clusterStop.abort();
      await clusterDone;
      await env?.stop();
    }, 60_000);

    function run(c: { start(signal: AbortSignal): Promise<void> }): void {
      const stop = new AbortController();
      stops.push({ stop, done: c.start(stop.signal) });
    }

    async function namespace(): Promise<string> {
      const name = ns();
      await cluster.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      return name;
    }

    it('collapses 50 rapid updates into far fewer reconciles, never two at once, and sees the last', async () => {
      const space = await namespace();
      await cluster.client.create(configMap('hot', { v: '0' }, space));
      let running = 0;
      let overlaps = 0;
      let reconciles = 0;
      let lastSeen = '';
      const reconciler: ReconcileFunc = async (req, ctx) => {
        if (req.namespace !== space) return;
        if (running++ > 0) overlaps++;
        reconciles++;
        try {
          const cm = await cluster.client.get<KubeObject & { data?: Record<string, string> }>(configMaps, req, { signal: ctx.signal });
          lastSeen = cm.data?.['v'] ?? '';
          await new Promise((r) => setTimeout(r, 20));
        } finally {
          running--;
        }
      };
      const c: Controller = newController('hot', { reconciler, maxConcurrentReconciles: 4, logger: silentLogger });
      c.multiClusterWatch(
        kind(configMaps, forObject, {
          create: (e) => e.object.metadata.namespace === space,
          update: (e) => e.objectNew.metadata.namespace === space,
        }),
      );
      run(c);
      await c.engage(new AbortController().signal, 'real', cluster);
      await expect.poll(() => lastSeen, { timeout: 10_000 }).toBe('0');
      const before = reconciles;
      for (let i = 1; i <= 50; i++) {
        await cluster.client.patch(configMaps, { namespace: space, name: 'hot' }, { type: 'merge', body: { data: { v: String(i) } } });
      }
      await expect.poll(() => lastSeen, { timeout: 15_000 }).toBe('50');
      expect(reconciles - before).toBeLessThan(25);
      expect(overlaps).toBe(0);
    });

    it('reconciles the owner when an owned object changes, through the builder and manager', async () => {
      const space = await namespace();
      const mgr = newManager(kc, undefined, {
        logger: silentLogger,
        newCluster: (config, o) => newCluster(config, { ...o, name: 'local' }),
      });
      const calls: string[] = [];
      controllerManagedBy(mgr)
        .for(configMaps)
        .owns(secrets)
        .withEventFilter({
          create: (e) => e.object.metadata.namespace === space,
          update: (e) => e.objectNew.metadata.namespace === space,
          delete: (e) => e.object.metadata.namespace === space,
        })
        .complete(async (req) => {
          calls.push(key(req));
        });
      run(mgr);
      const owner = await cluster.client.create(configMap('owner', {}, space));
      await expect.poll(() => calls, { timeout: 15_000 }).toContain(`/${space}/owner`);
      const before = calls.length;
      await cluster.client.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          namespace: space,
          name: 'owned',
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid!, controller: true }],
        },
      });
      await expect.poll(() => calls.slice(before), { timeout: 10_000 }).toContain(`/${space}/owner`);
      expect(calls).not.toContain(`/${space}/owned`);
    });

    it('starts watching a CRD installed after engagement, and closes its watch on disengage', async () => {
      const gadgets = { apiVersion: 'real.example.com/v1', kind: 'Gadget' };
      const seen: string[] = [];
      const c = newController('gadgets', {
        reconciler: async (req) => {
          seen.push(key(req));
        },
        logger: silentLogger,
      });
      c.multiClusterWatch(kind(gadgets, forObject).with({ logger: silentLogger, retry: { initialDelayMs: 100, maxDelayMs: 500 } }));
      run(c);
      const engagement = new AbortController();
      await c.engage(engagement.signal, 'real', cluster);
      await cluster.client.create({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'gadgets.real.example.com' },
        spec: {
          group: 'real.example.com',
          scope: 'Namespaced',
          names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          ],
        },
      });
      await expect
        .poll(
          () =>
            cluster.client.create({ ...gadgets, metadata: { namespace: 'default', name: 'g' } }).then(
              () => true,
              () => false,
            ),
          { timeout: 20_000 },
        )
        .toBe(true);
      await expect.poll(() => seen, { timeout: 20_000 }).toContain('real/default/g');

      const socketsWhileWatching = openSockets();
      engagement.abort();
      expect(c.engagedClusters()).toEqual([]);
      // The source's informer was the only user of the Gadget watch: releasing it closed the watch's connection.
      await expect.poll(() => openSockets(), { timeout: 10_000 }).toBeLessThan(socketsWhileWatching);
    });
  });
}
