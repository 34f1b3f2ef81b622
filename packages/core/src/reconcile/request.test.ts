import { describe, expect, it } from 'vitest';
import { silentLogger } from '../log/logger.js';
import { reconcilerFromFunc, requestKey, requestToString } from './request.js';
import type { ReconcileContext, Request } from './types.js';

describe('request helpers', () => {
  it('prints local requests as ns/name and others as cluster://cluster/ns/name', () => {
    expect(requestToString({ clusterName: '', namespace: 'ns', name: 'a' })).toBe('ns/a');
    expect(requestToString({ clusterName: '', namespace: '', name: 'node-1' })).toBe('node-1');
    expect(requestToString({ clusterName: 'east', namespace: 'ns', name: 'a' })).toBe('cluster://east/ns/a');
    expect(requestToString({ clusterName: 'kind#dev', namespace: '', name: 'n' })).toBe('cluster://kind#dev/n');
  });

  it('keys requests so that no two distinct requests collide', () => {
    const a: Request = { clusterName: 'a/b', namespace: 'c', name: 'd' };
    const b: Request = { clusterName: 'a', namespace: 'b/c', name: 'd' };
    expect(requestKey(a)).not.toBe(requestKey(b));
    expect(requestKey({ name: 'd', namespace: 'c', clusterName: 'a/b' })).toBe(requestKey(a));
  });

  it('adapts a function into a Reconciler that passes request and context through', async () => {
    const seen: string[] = [];
    const r = reconcilerFromFunc(async (req, ctx) => {
      seen.push(`${requestToString(req)} ${ctx.clusterName}`);
      return { requeueAfter: 7 };
    });
    const ctx: ReconcileContext = { signal: new AbortController().signal, log: silentLogger, clusterName: 'east' };
    await expect(r.reconcile({ clusterName: 'east', namespace: 'ns', name: 'a' }, ctx)).resolves.toEqual({ requeueAfter: 7 });
    expect(seen).toEqual(['cluster://east/ns/a east']);
  });
});
