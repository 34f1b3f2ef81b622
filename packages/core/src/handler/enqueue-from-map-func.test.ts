import { describe, expect, it } from 'vitest';
import { createLogger } from '../log/logger.js';
import type { KubeObject } from '../object/types.js';
import { enqueueRequestsFromMapFunc } from './enqueue-from-map-func.js';
import { RecordingQueue, testCluster } from './fixtures.test-util.js';

const obj = (name: string, labels: Record<string, string> = {}): KubeObject => ({ metadata: { name, namespace: 'ns', labels } });

describe('enqueueRequestsFromMapFunc', () => {
  const cluster = testCluster('east');

  it('defaults targets to the event’s cluster and enqueues into another cluster when told (cross-cluster)', () => {
    const q = new RecordingQueue();
    const seen: string[] = [];
    const h = enqueueRequestsFromMapFunc((o, ctx) => {
      seen.push(`${ctx.clusterName}:${ctx.cluster.name}`);
      return [
        { namespace: 'ns', name: `${o.metadata.name}-local` },
        { clusterName: 'hub', name: 'global' },
      ];
    });
    h.create!({ clusterName: 'east', cluster, object: obj('a'), isInInitialList: false }, q);
    expect(q.added).toEqual([
      { clusterName: 'east', namespace: 'ns', name: 'a-local' },
      { clusterName: 'hub', namespace: '', name: 'global' },
    ]);
    expect(seen).toEqual(['east:east']);
  });

  it('maps both old and new objects on update and enqueues each target once', () => {
    const q = new RecordingQueue();
    const h = enqueueRequestsFromMapFunc((o) => [{ name: o.metadata.labels!['team']! }, { name: 'shared' }]);
    h.update!({ clusterName: 'east', cluster, objectOld: obj('a', { team: 'red' }), objectNew: obj('a', { team: 'blue' }) }, q);
    expect(q.added.map((r) => r.name)).toEqual(['red', 'shared', 'blue']);
  });

  it('handles delete and generic events', () => {
    const q = new RecordingQueue();
    const h = enqueueRequestsFromMapFunc((o) => [{ name: o.metadata.name! }]);
    h.delete!({ clusterName: 'east', cluster, object: obj('d'), deleteStateUnknown: true }, q);
    h.generic!({ clusterName: 'east', cluster, object: obj('g') }, q);
    expect(q.added.map((r) => r.name)).toEqual(['d', 'g']);
  });

  it('catches and logs a throwing map function, and keeps handling later events', () => {
    const records: string[] = [];
    const logger = createLogger({ sink: (_l, msg, fields) => records.push(`${msg} ${String(fields['error'])}`) });
    const q = new RecordingQueue();
    const h = enqueueRequestsFromMapFunc(
      (o) => {
        if (o.metadata.name === 'bad') throw new Error('boom');
        return [{ name: 'ok' }];
      },
      { logger },
    );
    expect(() => h.create!({ clusterName: 'east', cluster, object: obj('bad'), isInInitialList: false }, q)).not.toThrow();
    h.create!({ clusterName: 'east', cluster, object: obj('good'), isInInitialList: false }, q);
    expect(q.added.map((r) => r.name)).toEqual(['ok']);
    expect(records).toEqual([expect.stringContaining('map function threw on create event')]);
    expect(records[0]).toContain('boom');
  });

  it('skips malformed targets and non-array results with a log line each, keeping the valid ones', () => {
    const records: string[] = [];
    const logger = createLogger({ sink: (_l, msg) => records.push(msg) });
    const q = new RecordingQueue();
    const results: unknown[] = [
      [{ name: '' }, { name: 'fine' }, null, { name: 'x', namespace: 3 }, { name: 'y', clusterName: {} }],
      'not an array',
      undefined,
      null,
    ];
    const h = enqueueRequestsFromMapFunc(() => results.shift() as never, { logger });
    for (let i = 0; i < 4; i++) h.generic!({ clusterName: 'east', cluster, object: obj('o') }, q);
    expect(q.added).toEqual([{ clusterName: 'east', namespace: '', name: 'fine' }]);
    expect(records.filter((m) => m.includes('malformed target'))).toHaveLength(4);
    expect(records.filter((m) => m.includes('instead of an array'))).toHaveLength(1);
  });
});
