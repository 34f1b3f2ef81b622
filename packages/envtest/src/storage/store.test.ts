import { describe, expect, test } from 'vitest';
import { ResourceVersionExpiredError, ResourceVersionTooLargeError } from './errors.js';
import { Store } from './store.js';
import type { StoreEvent } from './types.js';

const key = (name: string, namespace = 'ns', cluster = '') => ({ cluster, resource: 'configmaps', namespace, name });
const obj = (name: string, v = '1') => ({ metadata: { name, namespace: 'ns' }, data: { v } });

describe('Store', () => {
  test('one global revision across resources; stored copies are isolated from callers', () => {
    const s = new Store();
    const a = s.create(key('a'), obj('a'));
    const b = s.create({ ...key('b'), resource: 'secrets' }, obj('b'));
    expect([a.metadata.resourceVersion, b.metadata.resourceVersion]).toEqual(['1', '2']);
    a.data = { v: 'mutated' };
    expect(s.get(key('a'))!['data']).toEqual({ v: '1' });
  });

  test('an update that changes nothing stores nothing and emits nothing', () => {
    const s = new Store();
    const events: StoreEvent[] = [];
    s.subscribe('configmaps', (e) => events.push(e));
    const a = s.create(key('a'), obj('a'));
    const same = s.update(key('a'), { ...a, metadata: { ...a.metadata, resourceVersion: '999' } });
    expect(same.metadata.resourceVersion).toBe('1');
    expect(s.currentRv).toBe(1);
    expect(events).toHaveLength(1);
  });

  test('DELETED carries the last state with the delete revision', () => {
    const s = new Store();
    const events: StoreEvent[] = [];
    s.create(key('a'), obj('a'));
    s.subscribe('configmaps', (e) => events.push(e));
    s.delete(key('a'));
    expect(events[0]).toMatchObject({ type: 'DELETED', rv: 2, object: { metadata: { resourceVersion: '2' }, data: { v: '1' } } });
    expect(s.get(key('a'))).toBeUndefined();
  });

  test('snapshotAt undoes later writes; eventsAfter is strictly greater than N', () => {
    const s = new Store();
    s.create(key('a'), obj('a', '1'));
    s.create(key('b'), obj('b'));
    s.update(key('a'), obj('a', '2'));
    s.delete(key('b'));
    s.create(key('c'), obj('c'));
    const at2 = s.snapshotAt({ resource: 'configmaps' }, 2);
    expect(at2.items.map((i) => [i.object.metadata.name, (i.object['data'] as { v: string }).v])).toEqual([
      ['a', '1'],
      ['b', '1'],
    ]);
    expect(s.eventsAfter({ resource: 'configmaps' }, 3).map((e) => `${e.type}:${e.key.name}`)).toEqual(['DELETED:b', 'ADDED:c']);
    expect(() => s.snapshotAt({ resource: 'configmaps' }, 99)).toThrow(ResourceVersionTooLargeError);
  });

  test('scopes filter by logical cluster and namespace', () => {
    const s = new Store();
    s.create(key('a', 'ns', 'c1'), obj('a'));
    s.create(key('a', 'ns', 'c2'), obj('a'));
    s.create(key('b', 'other', 'c1'), obj('b'));
    expect(s.snapshot({ resource: 'configmaps', cluster: 'c1' }).items).toHaveLength(2);
    expect(s.snapshot({ resource: 'configmaps', cluster: 'c1', namespace: 'ns' }).items).toHaveLength(1);
    expect(s.snapshot({ resource: 'configmaps' }).items).toHaveLength(3);
    expect(s.snapshot({ resource: 'configmaps', namespace: 'ns' }).items).toHaveLength(2);
  });

  test('compact() and a bounded history make older revisions expire', () => {
    const s = new Store({ historySize: 10 });
    for (let i = 0; i < 25; i++) s.create(key(`o${i}`), obj(`o${i}`));
    expect(s.oldestRv).toBeGreaterThan(0);
    expect(() => s.eventsAfter({ resource: 'configmaps' }, 1)).toThrow(ResourceVersionExpiredError);
    expect(s.eventsAfter({ resource: 'configmaps' }, s.oldestRv).length).toBeGreaterThan(0);
    s.compact();
    expect(() => s.eventsAfter({ resource: 'configmaps' }, 24)).toThrow(ResourceVersionExpiredError);
    expect(s.eventsAfter({ resource: 'configmaps' }, 25)).toEqual([]);
  });
});
