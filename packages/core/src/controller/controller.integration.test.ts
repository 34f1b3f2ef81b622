/**
 * The controller over real API servers (the in-memory envtest server, real HTTP and watch streams): deduplication
 * under rapid updates, engage/disengage cycles without leaks, fairness under a flood, cross-cluster enqueue.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Cluster } from '../cluster/types.js';
import type { EventHandler } from '../handler/types.js';
import { silentLogger } from '../log/logger.js';
import { ClusterNotFoundError } from '../multicluster/errors.js';
import type { KubeObject } from '../object/types.js';
import type { ReconcileFunc, Request } from '../reconcile/types.js';
import { kind } from '../source/kind.js';
import { newController, type Controller } from './controller.js';
import { activeTimers, configMap, configMaps, Fleet, forObject, openSockets } from './fleet.test-util.js';

const fleet = new Fleet();
const runs: { stop: AbortController; done: Promise<void> }[] = [];
afterEach(async () => {
  for (const r of runs.splice(0)) {
    r.stop.abort();
    await r.done.catch(() => {});
  }
  await fleet.closeAll();
});

function run(c: Controller): AbortController {
  const stop = new AbortController();
  runs.push({ stop, done: c.start(stop.signal) });
  return stop;
}

const key = (r: Request) => `${r.clusterName}/${r.namespace}/${r.name}`;

describe('controller over API servers', () => {
  it('collapses 50 rapid updates of one object into far fewer reconciles, never two at once, and sees the last', async () => {
    const a = await fleet.member('a');
    await a.cluster.client.create(configMap('hot', { v: '0' }));
    const inFlight = new Set<string>();
    let overlaps = 0;
    let reconciles = 0;
    let lastSeen = '';
    const reconciler: ReconcileFunc = async (req, ctx) => {
      if (inFlight.has(key(req))) overlaps++;
      inFlight.add(key(req));
      reconciles++;
      try {
        // From the server, not the cache: each reconcile takes a round trip, as the coalescing bound assumes.
        const cm = await a.cluster.apiReader.get<KubeObject & { data?: Record<string, string> }>(configMaps, req, { signal: ctx.signal });
        lastSeen = cm.data?.['v'] ?? '';
        await new Promise((r) => setTimeout(r, 15));
      } finally {
        inFlight.delete(key(req));
      }
    };
    const c = newController('hot', { reconciler, maxConcurrentReconciles: 4, logger: silentLogger });
    c.multiClusterWatch(kind(configMaps, forObject));
    run(c);
    await c.engage(new AbortController().signal, 'a', a.cluster);
    await expect.poll(() => lastSeen).toBe('0');
    const before = reconciles;
    for (let i = 1; i <= 50; i++) {
      await a.cluster.client.patch(configMaps, { namespace: 'default', name: 'hot' }, { type: 'merge', body: { data: { v: String(i) } } });
    }
    await expect.poll(() => lastSeen, { timeout: 10_000 }).toBe('50');
    expect(reconciles - before).toBeLessThan(25);
    expect(overlaps).toBe(0);
  });

  it('leaves no informers, watches, handlers, timers or sockets after 1,000 engage/disengage cycles', async () => {
    const a = await fleet.member('a');
    await a.cluster.client.create(configMap('one'));
    const c = newController('flap', { reconciler: async () => {}, logger: silentLogger });
    c.multiClusterWatch(kind(configMaps, forObject));
    run(c);
    // Warm up once, so discovery and the connection pool exist before counting; an engagement really watches.
    const warm = new AbortController();
    await c.engage(warm.signal, 'a', a.cluster);
    await expect.poll(() => a.server.stats().openWatches).toBe(1);
    warm.abort();
    await expect.poll(() => a.server.stats().openWatches).toBe(0);
    const timersBefore = activeTimers();
    const socketsBefore = openSockets();
    const connectionsBefore = a.server.stats().connections;

    for (let i = 0; i < 1000; i++) {
      const engagement = new AbortController();
      await c.engage(engagement.signal, 'a', a.cluster);
      engagement.abort();
    }

    expect(c.engagedClusters()).toEqual([]);
    await expect.poll(() => a.server.stats().openWatches, { timeout: 10_000 }).toBe(0);
    // Each cycle's informer was the source's alone: released at disengage, it stopped, so no watch stays open.
    // A request aborted mid-flight clears its request-timeout timer at once (signal/deadline.ts).
    await expect.poll(() => activeTimers(), { timeout: 10_000, interval: 250 }).toBeLessThanOrEqual(timersBefore);
    await expect.poll(() => openSockets(), { timeout: 10_000 }).toBeLessThanOrEqual(socketsBefore);
    // Aborting an in-flight list or watch costs its socket, so some new connections are expected, but not one per cycle.
    expect(a.server.stats().connections - connectionsBefore).toBeLessThanOrEqual(50);
  }, 120_000);

  it('stops and closes every connection of 100 clusters engaged, disengaged and stopped in turn', async () => {
    const server = await fleet.server();
    const socketsBefore = openSockets();
    const c = newController('churn', { reconciler: async () => {}, logger: silentLogger });
    c.multiClusterWatch(kind(configMaps, forObject));
    run(c);
    for (let i = 0; i < 100; i++) {
      const m = fleet.clusterOn(server, 'a');
      const engagement = new AbortController();
      await c.engage(engagement.signal, 'a', m.cluster);
      engagement.abort();
      m.stop.abort();
      await m.done;
    }
    await expect.poll(() => openSockets(), { timeout: 10_000 }).toBeLessThanOrEqual(socketsBefore);
    expect(server.stats().openWatches).toBe(0);
  }, 120_000);

  it('reconciles a quiet cluster within 500 ms while a flooded one has 10,000 events queued', async () => {
    const [noisy, quiet] = await Promise.all([fleet.member('noisy'), fleet.member('quiet')]);
    for (let i = 0; i < 10_000; i += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, j) => noisy.cluster.client.create(configMap(`n${i + j}`))));
    }
    let noisyDone = 0;
    let quietAt = 0;
    const reconciler: ReconcileFunc = async (req) => {
      if (req.clusterName === 'quiet') quietAt = performance.now();
      else noisyDone++;
      await new Promise((r) => setTimeout(r, 1));
    };
    const c = newController('fair', { reconciler, logger: silentLogger });
    c.multiClusterWatch(kind(configMaps, forObject));
    run(c);
    await c.engage(new AbortController().signal, 'noisy', noisy.cluster);
    await c.engage(new AbortController().signal, 'quiet', quiet.cluster);
    await expect.poll(() => noisyDone, { timeout: 10_000 }).toBeGreaterThan(0);
    const created = performance.now();
    await quiet.cluster.client.create(configMap('q'));
    await expect.poll(() => quietAt, { timeout: 5_000 }).toBeGreaterThan(0);
    expect(quietAt - created).toBeLessThan(500);
    expect(noisyDone).toBeLessThan(5_000);
  }, 120_000);

  it('enqueues across clusters: an event in A reconciles a request for B, which writes to B', async () => {
    const [a, b] = await Promise.all([fleet.member('a'), fleet.member('b')]);
    const clusters = new Map<string, Cluster>([
      ['a', a.cluster],
      ['b', b.cluster],
    ]);
    const toB: EventHandler = {
      create: (e, q) => q.add({ clusterName: 'b', namespace: e.object.metadata.namespace ?? '', name: e.object.metadata.name! }),
    };
    const seen: string[] = [];
    const reconciler: ReconcileFunc = async (req, ctx) => {
      seen.push(key(req));
      const target = clusters.get(req.clusterName);
      if (!target) throw new ClusterNotFoundError(req.clusterName);
      const source = await a.cluster.client.get<KubeObject & { data?: Record<string, string> }>(configMaps, req, { signal: ctx.signal });
      await target.client.create(configMap(req.name, { copiedFrom: 'a', ...source.data }));
    };
    const c = newController('sync', { reconciler, logger: silentLogger });
    c.multiClusterWatch(kind(configMaps, toB).with({ clusterFilter: (name) => name === 'a' }));
    run(c);
    await c.engage(new AbortController().signal, 'a', a.cluster);
    await c.engage(new AbortController().signal, 'b', b.cluster);
    await a.cluster.client.create(configMap('shared', { k: 'v' }));
    await expect
      .poll(
        async () =>
          (
            await b.cluster.client
              .get<KubeObject & { data?: Record<string, string> }>(configMaps, { namespace: 'default', name: 'shared' })
              .catch(() => undefined)
          )?.data,
      )
      .toEqual({ copiedFrom: 'a', k: 'v' });
    expect(seen).toContain('b/default/shared');
    expect(seen.some((s) => s.startsWith('a/'))).toBe(false);
  });

  it('engages a cluster that lacks the watched CRD, and reconciles its objects once the CRD is installed', async () => {
    const a = await fleet.member('a');
    const widgets = { apiVersion: 'example.com/v1', kind: 'Widget' };
    const seen: string[] = [];
    const c = newController('widgets', {
      reconciler: async (req) => {
        seen.push(key(req));
      },
      logger: silentLogger,
    });
    c.multiClusterWatch(kind(widgets, forObject).with({ logger: silentLogger, retry: { initialDelayMs: 50, maxDelayMs: 200 } }));
    run(c);
    // Engaging does not fail (other controllers of this cluster must go on): the source retries in the background.
    await c.engage(new AbortController().signal, 'a', a.cluster);
    expect(c.engagedClusters()).toEqual(['a']);
    await a.cluster.client.create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
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
          a.cluster.client.create({ ...widgets, metadata: { namespace: 'default', name: 'w' } }).then(
            () => true,
            () => false,
          ),
        { timeout: 10_000 },
      )
      .toBe(true);
    await expect.poll(() => seen, { timeout: 10_000 }).toContain('a/default/w');
  });
});
