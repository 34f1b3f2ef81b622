import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../object/types.js';
import { NAMESPACE_INDEX, Store } from './store.js';
import { metadataOnly } from './transform.js';

function cm(namespace: string, name: string, rv: string, data: Record<string, string> = {}, labels?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace, name, resourceVersion: rv, ...(labels ? { labels } : {}), managedFields: [{ manager: 'x' }] },
    data,
  };
}

describe('Store', () => {
  it('keeps objects by namespace/name, frozen, without managedFields', () => {
    const store = new Store();
    const change = store.apply(cm('a', 'one', '1', { k: 'v' }));
    expect(change?.type).toBe('add');
    const got = store.get('a', 'one');
    expect(got?.metadata.managedFields).toBeUndefined();
    expect(got?.['data']).toEqual({ k: 'v' });
    expect(Object.isFrozen(got)).toBe(true);
    expect(() => {
      (got!['data'] as Record<string, string>)['k'] = 'corrupted';
    }).toThrow(TypeError);
    expect(() => {
      got!.metadata.name = 'other';
    }).toThrow(TypeError);
    expect(store.get('a', 'one')?.['data']).toEqual({ k: 'v' });
  });

  it('reports an update only when the resourceVersion changed', () => {
    const store = new Store();
    store.apply(cm('a', 'one', '1'));
    expect(store.apply(cm('a', 'one', '1', { replayed: 'yes' }))).toBeUndefined();
    const change = store.apply(cm('a', 'one', '2', { k: 'new' }));
    expect(change?.type).toBe('update');
    if (change?.type !== 'update') return;
    expect(change.oldObject.metadata.resourceVersion).toBe('1');
    expect(change.object.metadata.resourceVersion).toBe('2');
  });

  it('indexes by namespace and by user indexes, before and after objects arrive, and follows updates', () => {
    const store = new Store();
    store.apply(cm('a', 'one', '1', {}, { app: 'web' }));
    store.apply(cm('b', 'two', '2', {}, { app: 'web' }));
    store.addIndex('app', (o) => (o.metadata.labels?.['app'] ? [o.metadata.labels['app']] : []));
    store.apply(cm('a', 'three', '3', {}, { app: 'db' }));
    expect(store.byIndex(NAMESPACE_INDEX, 'a').map((o) => o.metadata.name)).toEqual(['one', 'three']);
    expect(store.byIndex('app', 'web').map((o) => o.metadata.name)).toEqual(['one', 'two']);
    store.apply(cm('a', 'one', '4', {}, { app: 'db' }));
    expect(store.byIndex('app', 'web').map((o) => o.metadata.name)).toEqual(['two']);
    expect(store.byIndex('app', 'db').map((o) => o.metadata.name)).toEqual(['one', 'three']);
    store.delete(cm('a', 'three', '5'));
    expect(store.byIndex('app', 'db').map((o) => o.metadata.name)).toEqual(['one']);
    expect(store.byIndex(NAMESPACE_INDEX, 'a').map((o) => o.metadata.name)).toEqual(['one']);
  });

  it('keeps an updated object under unchanged index values, and moves it when an update changes or breaks them', () => {
    const store = new Store();
    let broken = false;
    store.addIndex('tags', (o) => {
      if (broken) throw new Error('broken');
      return (o.metadata.labels?.['tags'] ?? '').split('.').filter(Boolean);
    });
    store.apply(cm('a', 'one', '1', {}, { tags: 'x.y.x' }));
    const tagged = (tag: string) => store.byIndex('tags', tag).map((o) => o.metadata.name);
    expect(tagged('x')).toEqual(['one']);
    store.apply(cm('a', 'one', '2', { changed: 'data only' }, { tags: 'x.y.x' }));
    expect([tagged('x'), tagged('y')]).toEqual([['one'], ['one']]);
    expect(store.get('a', 'one')?.['data']).toEqual({ changed: 'data only' });
    store.apply(cm('a', 'one', '3', {}, { tags: 'y.z' }));
    expect([tagged('x'), tagged('y'), tagged('z')]).toEqual([[], ['one'], ['one']]);
    broken = true;
    store.apply(cm('a', 'one', '4', {}, { tags: 'y.z' }));
    expect([tagged('y'), tagged('z')]).toEqual([[], []]);
    broken = false;
    store.apply(cm('a', 'one', '5', {}, { tags: 'y.z' }));
    expect([tagged('y'), tagged('z')]).toEqual([['one'], ['one']]);
    expect(store.indexValues('tags', store.get('a', 'one')!)).toEqual(['y', 'z']);
  });

  it('refuses a second index of the same name and reads from an unknown index', () => {
    const store = new Store();
    store.addIndex('f', () => []);
    expect(() => store.addIndex('f', () => [])).toThrow(/already has an index "f"/);
    expect(() => store.byIndex('nope', 'x')).toThrow(/no index "nope"/);
  });

  it('leaves an object out of an index whose function throws, and reports it', () => {
    const errors: string[] = [];
    const store = new Store({ onIndexError: (index, obj) => errors.push(`${index}:${obj.metadata.name}`) });
    store.addIndex('bad', (o) => {
      if (o.metadata.name === 'boom') throw new Error('boom');
      return ['x'];
    });
    store.apply(cm('a', 'boom', '1'));
    store.apply(cm('a', 'fine', '2'));
    expect(errors).toEqual(['bad:boom']);
    expect(store.byIndex('bad', 'x').map((o) => o.metadata.name)).toEqual(['fine']);
    expect(store.size).toBe(2);
  });

  it('replaces atomically on relist and reports the difference', () => {
    const store = new Store();
    store.addIndex('k', (o) => Object.keys((o['data'] as object) ?? {}));
    store.apply(cm('a', 'kept', '1', { x: '1' }));
    store.apply(cm('a', 'changed', '2', { x: '1' }));
    store.apply(cm('a', 'gone', '3', { x: '1' }));
    store.beginReplace();
    store.stage(cm('a', 'kept', '1', { x: '1' }));
    store.stage(cm('a', 'changed', '7', { y: '1' }));
    store.stage(cm('a', 'new', '8', { y: '1' }));
    // Reads serve the old state until the relist is committed.
    expect(store.list().map((o) => o.metadata.name)).toEqual(['changed', 'gone', 'kept']);
    const changes = store.commitReplace();
    expect(changes.map((c) => `${c.type}:${c.object.metadata.name}${c.type === 'delete' ? `:${c.stateUnknown}` : ''}`).sort()).toEqual([
      'add:new',
      'delete:gone:true',
      'update:changed',
    ]);
    expect(store.list().map((o) => o.metadata.name)).toEqual(['changed', 'kept', 'new']);
    expect(store.byIndex('k', 'x').map((o) => o.metadata.name)).toEqual(['kept']);
    expect(store.byIndex('k', 'y').map((o) => o.metadata.name)).toEqual(['changed', 'new']);
  });

  it('delivers a delete for an object it never held, and refuses nameless objects', () => {
    const store = new Store();
    expect(store.delete(cm('a', 'unknown', '9')).type).toBe('delete');
    expect(() => store.apply({ metadata: {} })).toThrow(/without metadata.name/);
    expect(() => store.stage(cm('a', 'x', '1'))).toThrow(/without beginReplace/);
  });

  it('keeps only apiVersion, kind and metadata in metadata-only mode', () => {
    const store = new Store({ transform: metadataOnly });
    store.apply(cm('a', 'one', '1', { big: 'x'.repeat(1000) }, { app: 'web' }));
    expect(store.get('a', 'one')).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'a', name: 'one', resourceVersion: '1', labels: { app: 'web' } },
    });
  });

  it('keys cluster-scoped objects by name alone', () => {
    const store = new Store();
    store.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1', resourceVersion: '1' } });
    expect(store.get(undefined, 'ns1')?.metadata.name).toBe('ns1');
    expect(store.get('', 'ns1')?.metadata.name).toBe('ns1');
    expect(store.byIndex(NAMESPACE_INDEX, '').length).toBe(1);
  });
});
