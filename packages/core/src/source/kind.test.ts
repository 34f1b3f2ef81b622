import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Informer, InformerLease, InformerOptions, Registration, ResourceEventHandler } from '../cache/types.js';
import type { Cluster } from '../cluster/types.js';
import type { CreateEvent, DeleteEvent, EventHandler, RequestQueue, UpdateEvent } from '../handler/types.js';
import { createLogger, type LogFields } from '../log/logger.js';
import type { KubeObject, ObjectKind } from '../object/types.js';
import { ScriptedCluster } from '../providers/clusters/scripted-cluster.test-util.js';
import type { Request } from '../reconcile/types.js';
import { InformerCache } from '../cache/informer-cache.js';
import { configMaps as configMapMapping, MemoryApi } from '../cache/testing/memory-api.js';
import { SourceAlreadyStartedError } from './errors.js';
import { kind } from './kind.js';

/**
 * An informer the test drives: objects go in with add/update/remove, and handlers get the store replayed on
 * registration, as the cache contract says. The real informer is covered by the cache's tests and by this source's
 * integration tests over an API server.
 */
class DrivenInformer implements Informer<KubeObject> {
  readonly handlers = new Set<ResourceEventHandler<KubeObject>>();
  readonly store = new Map<string, KubeObject>();
  synced = false;
  constructor(readonly kind: ObjectKind) {}
  addEventHandler(handler: ResourceEventHandler<KubeObject>): Registration {
    for (const o of this.store.values()) handler.onAdd?.(o, true);
    this.handlers.add(handler);
    return {
      remove: () => {
        this.handlers.delete(handler);
      },
      hasSynced: () => this.synced,
    };
  }
  hasSynced(): boolean {
    return this.synced;
  }
  status() {
    return { phase: 'watching' as const, synced: this.synced, failures: 0 };
  }
  get(ns: string, name: string) {
    return this.store.get(`${ns}/${name}`);
  }
  list() {
    return [...this.store.values()];
  }
  add(o: KubeObject) {
    this.store.set(`${o.metadata.namespace}/${o.metadata.name}`, o);
    for (const h of this.handlers) h.onAdd?.(o, false);
  }
  update(o: KubeObject) {
    const k = `${o.metadata.namespace}/${o.metadata.name}`;
    const old = this.store.get(k)!;
    this.store.set(k, o);
    for (const h of this.handlers) h.onUpdate?.(old, o);
  }
  remove(o: KubeObject) {
    this.store.delete(`${o.metadata.namespace}/${o.metadata.name}`);
    for (const h of this.handlers) h.onDelete?.(o, false);
  }
}

class DrivenCache {
  readonly informers = new Map<string, DrivenInformer>();
  leases = 0;
  lastOptions: InformerOptions | undefined;
  failWith: Error | undefined;
  /** Holds acquireInformer until released, to test aborts during acquisition. */
  gate: Promise<void> | undefined;
  async acquireInformer(k: ObjectKind, options: InformerOptions = {}): Promise<InformerLease<KubeObject>> {
    this.lastOptions = options;
    if (this.gate) await this.gate;
    if (this.failWith) throw this.failWith;
    const key = `${k.apiVersion}/${k.kind}/${options.metadataOnly ?? false}`;
    let inf = this.informers.get(key);
    if (!inf) this.informers.set(key, (inf = new DrivenInformer(k)));
    this.leases++;
    let released = false;
    return {
      informer: inf,
      release: () => {
        if (!released) {
          released = true;
          this.leases--;
        }
      },
    };
  }
}

function clusterWith(cache: DrivenCache): Cluster {
  const c = new ScriptedCluster('a');
  Object.defineProperty(c, 'cache', { value: cache });
  return c;
}

class RecordingQueue implements RequestQueue {
  readonly added: Request[] = [];
  add(r: Request) {
    this.added.push(r);
  }
  addAfter(r: Request) {
    this.added.push(r);
  }
  addRateLimited(r: Request) {
    this.added.push(r);
  }
}

const cm = (name: string, extra: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: 'ns', name, labels: {} },
  ...extra,
});
const configMaps = { apiVersion: 'v1', kind: 'ConfigMap' };

const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});
function stopper() {
  const s = new AbortController();
  stops.push(s);
  return s;
}

describe('kind source', () => {
  it('turns informer callbacks into events that carry the cluster, for the handler with the queue', async () => {
    const cache = new DrivenCache();
    const cluster = clusterWith(cache);
    const seen: string[] = [];
    const handler: EventHandler = {
      create: (e: CreateEvent, q) => {
        seen.push(`create ${e.object.metadata.name} initial=${e.isInInitialList}`);
        q.add({ clusterName: e.clusterName, namespace: 'ns', name: e.object.metadata.name! });
        expect(e.cluster).toBe(cluster);
      },
      update: (e: UpdateEvent) => {
        seen.push(`update ${String(e.objectOld.data)}->${String(e.objectNew.data)}`);
      },
      delete: (e: DeleteEvent) => {
        seen.push(`delete ${e.object.metadata.name} unknown=${e.deleteStateUnknown}`);
      },
    };
    const src = kind(configMaps, handler).forCluster('east', cluster)!;
    const q = new RecordingQueue();
    const inf0 = await cache.acquireInformer(configMaps);
    (inf0.informer as DrivenInformer).add(cm('before'));
    inf0.release();
    await src.start(stopper().signal, q);
    const inf = cache.informers.values().next().value!;
    inf.add(cm('x', { data: 1 }));
    inf.update(cm('x', { data: 2 }));
    inf.remove(cm('x'));
    expect(seen).toEqual(['create before initial=true', 'create x initial=false', 'update 1->2', 'delete x unknown=false']);
    expect(q.added).toEqual([
      { clusterName: 'east', namespace: 'ns', name: 'before' },
      { clusterName: 'east', namespace: 'ns', name: 'x' },
    ]);
  });

  it('ANDs predicates per event type; a throwing predicate or handler drops that event only, and is logged', async () => {
    const cache = new DrivenCache();
    const logs: { msg: string; fields: LogFields }[] = [];
    const logger = createLogger({ sink: (_l, msg, fields) => logs.push({ msg, fields }), level: 'debug' });
    const names: string[] = [];
    const handler: EventHandler = {
      create: (e) => {
        if (e.object.metadata.name === 'handler-throws') throw new Error('handler boom');
        names.push(e.object.metadata.name!);
      },
    };
    const src = kind(
      configMaps,
      handler,
      { create: (e) => e.object.metadata.labels?.['keep'] === 'yes' },
      {
        create: (e) => {
          if (e.object.metadata.name === 'predicate-throws') throw new Error('predicate boom');
          return true;
        },
      },
    )
      .with({ logger })
      .forCluster('a', clusterWith(cache))!;
    await src.start(stopper().signal, new RecordingQueue());
    const inf = cache.informers.values().next().value!;
    const keep = { keep: 'yes' };
    inf.add(cm('dropped'));
    inf.add(cm('predicate-throws', { metadata: { namespace: 'ns', name: 'predicate-throws', labels: keep } }));
    inf.add(cm('handler-throws', { metadata: { namespace: 'ns', name: 'handler-throws', labels: keep } }));
    inf.add(cm('kept', { metadata: { namespace: 'ns', name: 'kept', labels: keep } }));
    expect(names).toEqual(['kept']);
    expect(logs.map((l) => [l.msg, l.fields['name'], l.fields['error']])).toEqual([
      ['predicate threw on create event; event dropped', 'predicate-throws', 'predicate boom'],
      ['event handler threw on create event', 'handler-throws', 'handler boom'],
    ]);
    expect(logs[0]?.fields['cluster']).toBe('a');
  });

  it('removes its registration and releases its lease when the signal aborts', async () => {
    const cache = new DrivenCache();
    const handler = { create: vi.fn() };
    const src = kind(configMaps, handler).forCluster('a', clusterWith(cache))!;
    const stop = new AbortController();
    await src.start(stop.signal, new RecordingQueue());
    const inf = cache.informers.values().next().value!;
    expect(cache.leases).toBe(1);
    expect(inf.handlers.size).toBe(1);
    stop.abort();
    expect(cache.leases).toBe(0);
    expect(inf.handlers.size).toBe(0);
    inf.add(cm('late'));
    expect(handler.create).not.toHaveBeenCalled();
  });

  it('releases the lease when aborted while acquiring', async () => {
    const cache = new DrivenCache();
    let open!: () => void;
    cache.gate = new Promise((r) => {
      open = r;
    });
    const src = kind(configMaps, {}).forCluster('a', clusterWith(cache))!;
    const stop = new AbortController();
    const started = src.start(stop.signal, new RecordingQueue());
    stop.abort();
    open();
    await started;
    expect(cache.leases).toBe(0);
    expect(await src.waitForSync(stopper().signal)).toBe(false);
  });

  it('keeps retrying a cluster that cannot serve the kind yet, logging why, and delivers once it can', async () => {
    const cache = new DrivenCache();
    cache.failWith = new Error('no matches for kind "ConfigMap" in version "v1"');
    const logs: { msg: string; fields: LogFields }[] = [];
    const logger = createLogger({ sink: (_l, msg, fields) => logs.push({ msg, fields }), level: 'debug' });
    const queue = new RecordingQueue();
    const src = kind(configMaps, {
      create: (e, q) => q.add({ clusterName: e.clusterName, namespace: 'ns', name: e.object.metadata.name! }),
    })
      .with({ logger, retry: { initialDelayMs: 10, maxDelayMs: 20 } })
      .forCluster('b', clusterWith(cache))!;
    // start resolves: the engagement goes on while the source retries.
    await src.start(stopper().signal, queue);
    await vi.waitFor(() => expect(logs.filter((l) => l.msg.startsWith('source cannot start yet')).length).toBeGreaterThanOrEqual(2));
    expect(logs[0]?.fields).toMatchObject({ cluster: 'b', errorName: 'SourceStartFailedError' });
    expect(String(logs[0]?.fields['error'])).toMatch(/cluster "b".*no matches for kind/);
    cache.failWith = undefined;
    expect(await src.waitForSync(AbortSignal.timeout(100))).toBe(false); // registered, but the informer has not synced
    cache.informers.values().next().value!.synced = true;
    expect(await src.waitForSync(AbortSignal.timeout(5_000))).toBe(true);
    cache.informers.values().next().value!.add(cm('late-kind'));
    expect(queue.added.map((r) => r.name)).toEqual(['late-kind']);
  });

  it('stops retrying when its signal aborts', async () => {
    const cache = new DrivenCache();
    cache.failWith = new Error('discovery unavailable');
    const src = kind(configMaps, {})
      .with({ logger: createLogger({ sink: () => {} }), retry: { initialDelayMs: 10_000 } })
      .forCluster('c', clusterWith(cache))!;
    const stop = new AbortController();
    await src.start(stop.signal, new RecordingQueue());
    const timers = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    stop.abort();
    await vi.waitFor(() => expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBeLessThan(timers));
    expect(await src.waitForSync(stopper().signal)).toBe(false);
    expect(cache.leases).toBe(0);
  });

  it('may be started once', async () => {
    const src = kind(configMaps, {}).forCluster('a', clusterWith(new DrivenCache()))!;
    await src.start(stopper().signal, new RecordingQueue());
    await expect(src.start(stopper().signal, new RecordingQueue())).rejects.toBeInstanceOf(SourceAlreadyStartedError);
  });

  it('waits for its registration to sync, and gives up when the signal aborts', async () => {
    const cache = new DrivenCache();
    const src = kind(configMaps, {}).forCluster('a', clusterWith(cache))!;
    const waiting = src.waitForSync(stopper().signal);
    await src.start(stopper().signal, new RecordingQueue());
    const inf = cache.informers.values().next().value!;
    setTimeout(() => {
      inf.synced = true;
    }, 20);
    expect(await waiting).toBe(true);

    const unsynced = kind(configMaps, {}).forCluster('b', clusterWith(new DrivenCache()))!;
    await unsynced.start(stopper().signal, new RecordingQueue());
    const giveUp = new AbortController();
    setTimeout(() => giveUp.abort(), 30);
    expect(await unsynced.waitForSync(giveUp.signal)).toBe(false);
  });

  it('asks for a metadata-only informer when told to, and applies the cluster filter', () => {
    const cache = new DrivenCache();
    const filter = vi.fn((name: string) => name !== 'skip');
    const src = kind(configMaps, {}).with({ metadataOnly: true, clusterFilter: filter });
    expect(src.forCluster('skip', clusterWith(cache))).toBeUndefined();
    expect(src.forClusterUnfiltered('skip', clusterWith(cache))).toBeDefined();
    const throwing = kind(configMaps, {}).with({
      clusterFilter: () => {
        throw new Error('filter boom');
      },
      logger: createLogger({ sink: () => {} }),
    });
    expect(throwing.forCluster('x', clusterWith(cache))).toBeUndefined();
    const s = src.forCluster('keep', clusterWith(cache))!;
    return s.start(stopper().signal, new RecordingQueue()).then(() => {
      expect(cache.lastOptions?.metadataOnly).toBe(true);
      expect(filter).toHaveBeenCalledWith('keep', expect.anything());
    });
  });
});

describe('kind source over the informer cache', () => {
  it('shares one informer between sources, and stops it once the last source of a disengaged cluster lets go', async () => {
    const api = new MemoryApi();
    const cache = new InformerCache({ transport: api, restMapper: api });
    const cacheStop = stopper();
    const cacheDone = cache.start(cacheStop.signal);
    const cluster = new ScriptedCluster('a');
    Object.defineProperty(cluster, 'cache', { value: cache });
    api.write(configMapMapping, cm('existing'));

    const firstQueue = new RecordingQueue();
    const secondQueue = new RecordingQueue();
    const first = kind(configMaps, {
      create: (e, q) => q.add({ clusterName: e.clusterName, namespace: 'ns', name: e.object.metadata.name! }),
    });
    const second = kind(configMaps, {
      create: (e, q) => q.add({ clusterName: e.clusterName, namespace: 'ns', name: e.object.metadata.name! }),
    });
    const firstStop = new AbortController();
    const secondStop = new AbortController();
    const s1 = first.forCluster('a', cluster)!;
    const s2 = second.forCluster('a', cluster)!;
    await s1.start(firstStop.signal, firstQueue);
    await s2.start(secondStop.signal, secondQueue);
    expect(await s1.waitForSync(stopper().signal)).toBe(true);
    expect(await s2.waitForSync(stopper().signal)).toBe(true);
    await vi.waitFor(() => expect(api.openWatches).toBe(1));
    api.write(configMapMapping, cm('fresh'));
    await vi.waitFor(() => expect(secondQueue.added.map((r) => r.name)).toEqual(['existing', 'fresh']));

    firstStop.abort();
    api.write(configMapMapping, cm('after-first-stopped'));
    await vi.waitFor(() => expect(secondQueue.added).toHaveLength(3));
    expect(firstQueue.added.map((r) => r.name)).toEqual(['existing', 'fresh']);
    expect(api.openWatches).toBe(1);

    secondStop.abort();
    await vi.waitFor(() => expect(api.openWatches).toBe(0));
    cacheStop.abort();
    await cacheDone;
  });
});
