import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../object/types.js';
import { Store } from './store.js';

const cm = (cluster: string, name: string, rv: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', resourceVersion: rv, annotations: { 'kcp.io/cluster': cluster } },
});
const clusterKey = (obj: KubeObject) =>
  `${obj.metadata.annotations?.['kcp.io/cluster'] ?? ''}|${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;

describe('Store with a custom object key', () => {
  test('objects with the same namespace/name from different clusters are kept apart', () => {
    const store = new Store({ objectKey: clusterKey });
    store.addIndex('cluster', (o) => [o.metadata.annotations?.['kcp.io/cluster'] ?? '']);
    expect(store.apply(cm('a', 'x', '1'))?.type).toBe('add');
    expect(store.apply(cm('b', 'x', '2'))?.type).toBe('add');
    expect(store.size).toBe(2);
    expect(store.apply(cm('a', 'x', '3'))?.type).toBe('update');
    expect(store.byIndex('cluster', 'a').map((o) => o.metadata.resourceVersion)).toEqual(['3']);
    store.delete(cm('b', 'x', '4'));
    expect(store.byIndex('cluster', 'b')).toEqual([]);
    expect(store.byIndex('cluster', 'a')).toHaveLength(1);
    // The default namespace/name lookup does not apply to custom keys.
    expect(store.get('default', 'x')).toBeUndefined();
  });

  test('a relist replaces per custom key', () => {
    const store = new Store({ objectKey: clusterKey });
    store.apply(cm('a', 'x', '1'));
    store.apply(cm('b', 'x', '1'));
    store.beginReplace();
    store.stage(cm('b', 'x', '1'));
    const changes = store.commitReplace();
    expect(changes.map((c) => `${c.type}:${c.object.metadata.annotations?.['kcp.io/cluster']}`)).toEqual(['delete:a']);
  });
});
