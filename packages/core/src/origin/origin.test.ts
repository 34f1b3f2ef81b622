/** The origin stamp: keys, round trip, selector, names, and the map-back handler's requests. */
import { describe, expect, it } from 'vitest';
import type { RequestQueue } from '../handler/types.js';
import type { Cluster } from '../cluster/types.js';
import type { Request } from '../reconcile/types.js';
import type { KubeObject } from '../object/types.js';
import { enqueueRequestForOrigin, nameForOrigin, originKeys, originOf, originSelector, setOrigin } from './origin.js';

const origin = { clusterName: 'root:team-a', namespace: 'default', name: 'db' };

describe('setOrigin and originOf', () => {
  it('stamp three annotations and a hash label under the documented prefix, and read them back', () => {
    const obj: KubeObject = { metadata: { name: 'x', labels: { keep: 'me' }, annotations: { keep: 'me' } } };
    setOrigin(obj, origin);
    expect(obj.metadata.annotations).toEqual({
      keep: 'me',
      'multicluster-runtime.io/origin-cluster': 'root:team-a',
      'multicluster-runtime.io/origin-namespace': 'default',
      'multicluster-runtime.io/origin-name': 'db',
    });
    expect(obj.metadata.labels?.['multicluster-runtime.io/origin']).toMatch(/^[0-9a-f]{40}$/);
    expect(obj.metadata.labels).toMatchObject(originSelector(origin));
    expect(originOf(obj)).toEqual(origin);
    expect(originOf({ metadata: {} })).toBeUndefined();
    expect(originOf(obj, { prefix: 'other.io/' })).toBeUndefined();
  });

  it('takes a prefix per controller and refuses a malformed one', () => {
    expect(originKeys({ prefix: 'mongo.example.com/' }).cluster).toBe('mongo.example.com/origin-cluster');
    expect(() => originKeys({ prefix: 'no-slash' })).toThrow(/DNS subdomain followed by "\/"/);
    expect(() => setOrigin({}, { clusterName: 'a', namespace: 'b', name: '' })).toThrow(/needs a name/);
  });

  it('the selectors of different origins differ, also for cluster-scoped origins (namespace "")', () => {
    const a = originSelector(origin);
    expect(originSelector({ ...origin, clusterName: 'root:team-b' })).not.toEqual(a);
    expect(originSelector({ ...origin, namespace: '' })).not.toEqual(a);
  });
});

describe('nameForOrigin', () => {
  it('is a DNS label that differs per cluster for the same name', () => {
    const a = nameForOrigin(origin);
    const b = nameForOrigin({ ...origin, clusterName: 'root:team-b' });
    expect(a).toMatch(/^db-[0-9a-f]{10}$/);
    expect(b).not.toBe(a);
    const long = nameForOrigin({ ...origin, name: `${'X'.repeat(80)}.y` });
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  });
});

describe('enqueueRequestForOrigin', () => {
  it('enqueues the origin in its cluster for stamped objects and nothing for others', () => {
    const added: Request[] = [];
    const queue: RequestQueue = { add: (r) => void added.push(r), addAfter: () => {}, addRateLimited: () => {} };
    const handler = enqueueRequestForOrigin();
    const stamped: KubeObject = { metadata: { name: 'x', namespace: 'downstream' } };
    setOrigin(stamped, origin);
    const cluster = {} as Cluster;
    handler.create?.({ clusterName: '', cluster, object: stamped, isInInitialList: false }, queue);
    handler.create?.({ clusterName: '', cluster, object: { metadata: { name: 'plain' } }, isInInitialList: false }, queue);
    handler.delete?.({ clusterName: '', cluster, object: stamped, deleteStateUnknown: false }, queue);
    expect(added).toEqual([origin, origin]);
  });
});
