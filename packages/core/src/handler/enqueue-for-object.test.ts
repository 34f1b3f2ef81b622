import { describe, expect, it } from 'vitest';
import { createLogger, type LogFields } from '../log/logger.js';
import type { KubeObject } from '../object/types.js';
import { enqueueRequestForObject } from './enqueue-for-object.js';
import { RecordingQueue, testCluster } from './fixtures.test-util.js';

const cm = (name: string, namespace?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(namespace ? { namespace } : {}) },
});

describe('enqueueRequestForObject', () => {
  const cluster = testCluster('east');

  it('enqueues the object itself, in the event’s cluster, for every event type', () => {
    const h = enqueueRequestForObject();
    const q = new RecordingQueue();
    h.create!({ clusterName: 'east', cluster, object: cm('a', 'ns'), isInInitialList: true }, q);
    h.update!({ clusterName: 'east', cluster, objectOld: cm('b', 'ns'), objectNew: cm('b', 'ns') }, q);
    h.delete!({ clusterName: 'east', cluster, object: cm('c'), deleteStateUnknown: false }, q);
    h.generic!({ clusterName: '', cluster, object: cm('d', 'x') }, q);
    expect(q.added).toEqual([
      { clusterName: 'east', namespace: 'ns', name: 'a' },
      { clusterName: 'east', namespace: 'ns', name: 'b' },
      { clusterName: 'east', namespace: '', name: 'c' },
      { clusterName: '', namespace: 'x', name: 'd' },
    ]);
  });

  it('reports an object without a name instead of enqueuing a broken request', () => {
    const records: Array<{ msg: string; fields: LogFields }> = [];
    const logger = createLogger({ sink: (_l, msg, fields) => records.push({ msg, fields }) });
    const q = new RecordingQueue();
    enqueueRequestForObject({ logger }).create!({ clusterName: 'east', cluster, object: { metadata: {} }, isInInitialList: false }, q);
    expect(q.added).toEqual([]);
    expect(records).toHaveLength(1);
    expect(records[0]!.msg).toContain('without a name');
    expect(records[0]!.fields).toMatchObject({ cluster: 'east' });
  });
});
