import { describe, expect, it } from 'vitest';
import { newRequestQueue } from './request-queue.js';

describe('newRequestQueue', () => {
  it('deduplicates by cluster, namespace and name, and groups by cluster', async () => {
    const q = newRequestQueue({ name: 'ctrl' });
    q.add({ clusterName: 'a', namespace: 'ns', name: 'x' });
    q.add({ name: 'x', namespace: 'ns', clusterName: 'a' });
    q.add({ clusterName: 'b', namespace: 'ns', name: 'x' });
    q.add({ clusterName: 'a', namespace: 'ns\u0000', name: 'x' });
    expect(q.len()).toBe(3);
    expect(q.lenOf('a')).toBe(2);
    q.dropGroup('a');
    expect(await q.get()).toEqual({ clusterName: 'b', namespace: 'ns', name: 'x' });
    expect(q.len()).toBe(0);
    q.shutDown();
  });

  it('counts failures per request, so one request’s backoff does not slow another', () => {
    const q = newRequestQueue({ name: 'ctrl' });
    const r1 = { clusterName: 'a', namespace: 'ns', name: 'x' };
    q.addRateLimited(r1);
    q.addRateLimited({ ...r1 });
    expect(q.numRequeues(r1)).toBe(2);
    expect(q.numRequeues({ ...r1, clusterName: 'b' })).toBe(0);
    q.shutDown();
  });
});
