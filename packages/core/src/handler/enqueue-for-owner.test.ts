import { describe, expect, it } from 'vitest';
import { createLogger, type LogFields } from '../log/logger.js';
import type { KubeObject, OwnerReference } from '../object/types.js';
import { enqueueRequestForOwner } from './enqueue-for-owner.js';
import { RecordingQueue, TableRESTMapper, testCluster } from './fixtures.test-util.js';

const deployment = { apiVersion: 'apps/v1', kind: 'Deployment' };
const ref = (name: string, extra: Partial<OwnerReference> = {}): OwnerReference => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  name,
  uid: `uid-${name}`,
  controller: true,
  ...extra,
});
const owned = (refs: OwnerReference[], namespace = 'ns'): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name: 'rs', ...(namespace ? { namespace } : {}), ownerReferences: refs },
});

describe('enqueueRequestForOwner', () => {
  it('enqueues the controller owner of the given group and kind, in the owned object’s namespace', async () => {
    const mapper = new TableRESTMapper({ Deployment: true });
    const cluster = testCluster('east', mapper);
    const q = new RecordingQueue();
    const h = enqueueRequestForOwner(deployment);
    h.create!(
      {
        clusterName: 'east',
        cluster,
        isInInitialList: false,
        object: owned([
          ref('web'),
          ref('not-controller', { controller: false }),
          ref('other-group', { apiVersion: 'example.com/v1' }),
          ref('other-kind', { kind: 'StatefulSet' }),
          ref('other-version', { apiVersion: 'apps/v1beta2', name: 'web-beta' }),
        ]),
      },
      q,
    );
    await expect.poll(() => q.added.length).toBe(2);
    expect(q.added).toEqual([
      { clusterName: 'east', namespace: 'ns', name: 'web' },
      { clusterName: 'east', namespace: 'ns', name: 'web-beta' },
    ]);
  });

  it('follows every matching reference when onlyController is false', () => {
    const q = new RecordingQueue();
    const h = enqueueRequestForOwner(deployment, { onlyController: false, ownerNamespaced: true });
    h.create!(
      { clusterName: 'c', cluster: testCluster('c'), isInInitialList: false, object: owned([ref('a'), ref('b', { controller: false })]) },
      q,
    );
    expect(q.added.map((r) => r.name)).toEqual(['a', 'b']);
  });

  it('enqueues old and new owners on update, each once, so a removed owner is reconciled too', () => {
    const q = new RecordingQueue();
    const h = enqueueRequestForOwner(deployment, { onlyController: false, ownerNamespaced: true });
    h.update!(
      {
        clusterName: 'c',
        cluster: testCluster('c'),
        objectOld: owned([ref('old'), ref('both')]),
        objectNew: owned([ref('both'), ref('new')]),
      },
      q,
    );
    expect(q.added.map((r) => r.name)).toEqual(['old', 'both', 'new']);
  });

  it('uses no namespace for a cluster-scoped owner, looking the scope up once per cluster', async () => {
    const nsOwner = { apiVersion: 'example.com/v1', kind: 'Tenant' };
    const mapperA = new TableRESTMapper({ Tenant: false });
    const mapperB = new TableRESTMapper({ Tenant: true });
    const a = testCluster('a', mapperA);
    const b = testCluster('b', mapperB);
    const q = new RecordingQueue();
    const h = enqueueRequestForOwner(nsOwner);
    const tenantRef = ref('t1', { apiVersion: 'example.com/v1', kind: 'Tenant' });
    for (let i = 0; i < 5; i++) h.create!({ clusterName: 'a', cluster: a, isInInitialList: true, object: owned([tenantRef]) }, q);
    h.create!({ clusterName: 'b', cluster: b, isInInitialList: true, object: owned([tenantRef]) }, q);
    await expect.poll(() => q.added.length).toBe(6);
    h.delete!({ clusterName: 'a', cluster: a, deleteStateUnknown: false, object: owned([tenantRef]) }, q);
    // Known by now: enqueued synchronously, no new lookup.
    expect(q.added).toHaveLength(7);
    expect(mapperA.lookups).toBe(1);
    expect(mapperB.lookups).toBe(1);
    expect(q.added.filter((r) => r.clusterName === 'a').every((r) => r.namespace === '')).toBe(true);
    expect(q.added.find((r) => r.clusterName === 'b')).toEqual({ clusterName: 'b', namespace: 'ns', name: 't1' });
  });

  it('needs no lookup for a cluster-scoped owned object', () => {
    const mapper = new TableRESTMapper({});
    const q = new RecordingQueue();
    enqueueRequestForOwner(deployment).create!(
      { clusterName: 'c', cluster: testCluster('c', mapper), isInInitialList: false, object: owned([ref('x')], '') },
      q,
    );
    expect(q.added).toEqual([{ clusterName: 'c', namespace: '', name: 'x' }]);
    expect(mapper.lookups).toBe(0);
  });

  it('on a failed lookup logs, assumes a namespaced owner, and asks again next time', async () => {
    const mapper = new TableRESTMapper({ Deployment: false });
    mapper.fail = true;
    const records: Array<{ msg: string; fields: LogFields }> = [];
    const logger = createLogger({ sink: (_l, msg, fields) => records.push({ msg, fields }) });
    const cluster = testCluster('flaky', mapper);
    const q = new RecordingQueue();
    const h = enqueueRequestForOwner(deployment, { logger });
    h.create!({ clusterName: 'flaky', cluster, isInInitialList: false, object: owned([ref('web')]) }, q);
    await expect.poll(() => q.added.length).toBe(1);
    expect(q.added[0]).toEqual({ clusterName: 'flaky', namespace: 'ns', name: 'web' });
    expect(records[0]!.msg).toContain('assuming it is');
    expect(records[0]!.fields).toMatchObject({ cluster: 'flaky', ownerKind: 'apps/v1, Kind=Deployment' });
    mapper.fail = false;
    h.create!({ clusterName: 'flaky', cluster, isInInitialList: false, object: owned([ref('web')]) }, q);
    await expect.poll(() => q.added.length).toBe(2);
    expect(q.added[1]).toEqual({ clusterName: 'flaky', namespace: '', name: 'web' });
    expect(mapper.lookups).toBe(2);
  });

  it('ignores objects without owner references and malformed references', () => {
    const q = new RecordingQueue();
    const h = enqueueRequestForOwner(deployment, { ownerNamespaced: true });
    const cluster = testCluster('c');
    h.create!({ clusterName: 'c', cluster, isInInitialList: false, object: { metadata: { name: 'x', namespace: 'ns' } } }, q);
    h.create!(
      {
        clusterName: 'c',
        cluster,
        isInInitialList: false,
        object: owned([{ kind: 'Deployment', controller: true } as unknown as OwnerReference, null as unknown as OwnerReference]),
      },
      q,
    );
    expect(q.added).toEqual([]);
  });

  it('reports a queue that throws after an async lookup instead of leaking an unhandled rejection', async () => {
    const records: string[] = [];
    const logger = createLogger({ sink: (_l, msg) => records.push(msg) });
    const h = enqueueRequestForOwner(deployment, { logger });
    const throwing = new RecordingQueue();
    throwing.add = () => {
      throw new Error('queue broke');
    };
    h.create!(
      {
        clusterName: 'c',
        cluster: testCluster('c', new TableRESTMapper({ Deployment: true })),
        isInInitialList: false,
        object: owned([ref('web')]),
      },
      throwing,
    );
    await expect.poll(() => records).toContain('enqueueing owners failed');
  });
});
