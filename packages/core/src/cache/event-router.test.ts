/**
 * EventRouter and ScopedInformer over a SharedInformer fed by a scripted source: each key's handlers hear only its
 * objects, a late handler is replayed only its key's objects, and a scoped view's get and list follow adds, updates,
 * deletes and relists; the same with the router reading the informer's namespace index and scanning without one.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../log/logger.js';
import type { KubeObject } from '../object/types.js';
import { EventRouter, ScopedInformer } from './event-router.js';
import { SharedInformer } from './informer.js';
import { NAMESPACE_INDEX } from './store.js';
import { page, ScriptedSource, WatchChannel, recorder } from './testing/scripted-source.js';

const kind = { apiVersion: 'v1', kind: 'ConfigMap' };
const log = createLogger({ level: 'error', sink: () => {} });

const obj = (namespace: string, name: string, rv: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name, resourceVersion: rv },
});

const names = (objects: KubeObject[]): string[] => objects.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`);

const running: Array<{ ac: AbortController; done: Promise<void> }> = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    r.ac.abort();
    await r.done;
  }
});

async function started(source: ScriptedSource): Promise<SharedInformer> {
  const informer = new SharedInformer({ kind, source });
  const ac = new AbortController();
  running.push({ ac, done: informer.run(ac.signal) });
  await expect(informer.waitForSync(AbortSignal.timeout(5_000))).resolves.toBe(true);
  return informer;
}

describe.each([
  ['reading the namespace index', NAMESPACE_INDEX],
  ['without an index', undefined],
])('EventRouter %s', (_, index) => {
  const byNamespace = (informer: SharedInformer): EventRouter =>
    new EventRouter(informer, (o) => o.metadata.namespace ?? '', log, 'namespace', index);

  it("hands each key's handlers only that key's events, and replays only its objects to a late handler", async () => {
    const ch = new WatchChannel();
    const informer = await started(
      new ScriptedSource([page([obj('a', 'x', '1'), obj('b', 'y', '2'), obj('a', 'w', '3')], { resourceVersion: '3' })], [ch.step()]),
    );
    const router = byNamespace(informer);
    const a = recorder();
    const b = recorder();
    router.add('a', a.handler);
    router.add('b', b.handler);
    expect(a.calls).toEqual(['add:w@3:initial', 'add:x@1:initial']);
    expect(b.calls).toEqual(['add:y@2:initial']);

    ch.push({ type: 'MODIFIED', object: obj('a', 'x', '4') });
    ch.push({ type: 'ADDED', object: obj('c', 'z', '5') });
    ch.push({ type: 'DELETED', object: obj('b', 'y', '6') });
    await vi.waitFor(() => expect(informer.status().resourceVersion).toBe('6'));
    expect(a.calls.slice(2)).toEqual(['update:x@1->4']);
    expect(b.calls.slice(1)).toEqual(['delete:y']);

    const c = recorder();
    router.add('c', c.handler);
    expect(c.calls).toEqual(['add:z@5:initial']);
  });

  it('keeps delivering to the other handlers of a key when one throws', async () => {
    const ch = new WatchChannel();
    const informer = await started(new ScriptedSource([page([], { resourceVersion: '1' })], [ch.step()]));
    const router = byNamespace(informer);
    router.add('a', {
      onAdd: () => {
        throw new Error('boom');
      },
    });
    const kept = recorder();
    router.add('a', kept.handler);
    ch.push({ type: 'ADDED', object: obj('a', 'x', '2') });
    await vi.waitFor(() => expect(kept.calls).toEqual(['add:x@2']));
  });

  it('stops calling a removed handler', async () => {
    const ch = new WatchChannel();
    const informer = await started(new ScriptedSource([page([], { resourceVersion: '1' })], [ch.step()]));
    const router = byNamespace(informer);
    const gone = recorder();
    const stays = recorder();
    router.add('a', gone.handler).remove();
    router.add('a', stays.handler);
    ch.push({ type: 'ADDED', object: obj('a', 'x', '2') });
    await vi.waitFor(() => expect(stays.calls).toEqual(['add:x@2']));
    expect(gone.calls).toEqual([]);
  });

  it('a scoped view reads and lists only its key, following adds, updates, deletes and a relist', async () => {
    const first = new WatchChannel();
    const second = new WatchChannel();
    const informer = await started(
      new ScriptedSource(
        [
          page([obj('a', 'x', '1'), obj('b', 'x', '2')], { resourceVersion: '2' }),
          page([obj('a', 'v', '9'), obj('b', 'x', '2')], { resourceVersion: '9' }),
        ],
        [first.step(), second.step()],
      ),
    );
    const router = byNamespace(informer);
    const scoped = new ScopedInformer(router, 'a');
    expect(scoped.get('a', 'x')?.metadata.resourceVersion).toBe('1');
    expect(scoped.get('b', 'x')).toBeUndefined();
    expect(names(scoped.list())).toEqual(['x@1']);

    first.push({ type: 'ADDED', object: obj('a', 'u', '3') });
    first.push({ type: 'MODIFIED', object: obj('a', 'x', '4') });
    await vi.waitFor(() => expect(names(scoped.list())).toEqual(['u@3', 'x@4']));
    first.push({ type: 'DELETED', object: obj('a', 'u', '5') });
    await vi.waitFor(() => expect(names(scoped.list())).toEqual(['x@4']));
    expect(scoped.get('a', 'u')).toBeUndefined();

    // The watch ends with 410: the relist finds x gone and v new; the deleted-meanwhile x leaves the view too.
    const events = recorder();
    scoped.addEventHandler(events.handler);
    first.push({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' } });
    await vi.waitFor(() => expect(names(scoped.list())).toEqual(['v@9']));
    expect(scoped.get('a', 'x')).toBeUndefined();
    expect(events.calls).toEqual(['add:x@4:initial', 'delete:x:unknown', 'add:v@9']);
    expect(names(new ScopedInformer(router, 'b').list())).toEqual(['x@2']);
  });

  it('a scoped view sees objects the informer held before the router was made', async () => {
    const informer = await started(
      new ScriptedSource([page([obj('', 'node-1', '1'), obj('a', 'x', '2')], { resourceVersion: '2' })], [new WatchChannel().step()]),
    );
    const router = byNamespace(informer);
    expect(new ScopedInformer(router, '').get('', 'node-1')?.metadata.resourceVersion).toBe('1');
    expect(names(new ScopedInformer(router, 'a').list())).toEqual(['x@2']);
    expect(new ScopedInformer(router, 'none').list()).toEqual([]);
  });

  it("a scoped view's byIndex finds only its key's objects", async () => {
    const informer = await started(
      new ScriptedSource([page([obj('a', 'x', '1'), obj('b', 'x', '2')], { resourceVersion: '2' })], [new WatchChannel().step()]),
    );
    informer.addIndex('name', (o) => [o.metadata.name ?? '']);
    const router = byNamespace(informer);
    expect(names(new ScopedInformer(router, 'b').byIndex('name', 'x'))).toEqual(['x@2']);
    expect(() => new ScopedInformer(router, 'b').byIndex('missing', 'x')).toThrow(RangeError);
  });
});

describe('EventRouter with an index', () => {
  it("never reads the whole informer: a key's replay and list come from the index", async () => {
    const objects = Array.from({ length: 50 }, (_, i) => obj(`ns-${i % 5}`, `cm-${i}`, String(i + 1)));
    const informer = await started(new ScriptedSource([page(objects, { resourceVersion: '50' })], [new WatchChannel().step()]));
    const list = vi.spyOn(informer, 'list');
    const router = new EventRouter(informer, (o) => o.metadata.namespace ?? '', log, 'namespace', NAMESPACE_INDEX);
    list.mockClear(); // the router's own registration replays the informer once
    const replayed = recorder();
    router.add('ns-3', replayed.handler);
    const scoped = new ScopedInformer(router, 'ns-3');
    expect(replayed.calls).toHaveLength(10);
    expect(scoped.list()).toHaveLength(10);
    expect(scoped.get('ns-3', 'cm-13')?.metadata.resourceVersion).toBe('14');
    expect(list).not.toHaveBeenCalled();
  });
});
