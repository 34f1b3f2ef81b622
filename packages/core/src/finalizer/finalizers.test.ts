/** The in-memory finalizer helpers and the registry's rules, with a recording writer (the HTTP path is in registry.integration.test.ts). */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../client/errors.js';
import type { Patch } from '../client/types.js';
import type { KubeObject, ObjectKey, ObjectKind } from '../object/types.js';
import { FinalizerAlreadyRegisteredError, InvalidFinalizerError } from './errors.js';
import { addFinalizer, containsFinalizer, removeFinalizer } from './finalizers.js';
import { Finalizers } from './registry.js';

const obj = (finalizers?: string[], deleting = false): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    namespace: 'ns',
    name: 'a',
    resourceVersion: '7',
    ...(finalizers ? { finalizers } : {}),
    ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
});

describe('addFinalizer, removeFinalizer, containsFinalizer', () => {
  it('edit metadata.finalizers and say whether anything changed', () => {
    const o: { metadata?: { finalizers?: string[] } } = {};
    expect(containsFinalizer(o, 'example.com/x')).toBe(false);
    expect(addFinalizer(o, 'example.com/x')).toBe(true);
    expect(addFinalizer(o, 'example.com/x')).toBe(false);
    expect(addFinalizer(o, 'example.com/y')).toBe(true);
    expect(o.metadata?.finalizers).toEqual(['example.com/x', 'example.com/y']);
    expect(containsFinalizer(o, 'example.com/x')).toBe(true);
    expect(removeFinalizer(o, 'example.com/x')).toBe(true);
    expect(removeFinalizer(o, 'example.com/x')).toBe(false);
    expect(o.metadata?.finalizers).toEqual(['example.com/y']);
  });

  it('remove every copy of a finalizer', () => {
    const o = obj(['a.io/x', 'b.io/y', 'a.io/x']);
    expect(removeFinalizer(o, 'a.io/x')).toBe(true);
    expect(o.metadata.finalizers).toEqual(['b.io/y']);
  });

  it('refuse names the API server rejects', () => {
    expect(() => addFinalizer(obj(), 'Bad Name/x')).toThrow(InvalidFinalizerError);
    expect(() => addFinalizer(obj(), '')).toThrow(/invalid finalizer ""/);
  });
});

/** Records patches and answers as a server would (object gone once the last finalizer of a deleting object goes). */
class Recorder {
  patches: { key: ObjectKey; body: unknown }[] = [];
  failWith: unknown;
  async patch<T>(_kind: ObjectKind, key: ObjectKey, patch: Patch): Promise<T> {
    this.patches.push({ key, body: patch.body });
    await Promise.resolve();
    if (this.failWith) throw this.failWith as Error;
    const body = patch.body as { metadata: { finalizers: string[] } };
    return {
      ...obj(body.metadata.finalizers),
      metadata: { ...obj().metadata, resourceVersion: '8', finalizers: body.metadata.finalizers },
    } as T;
  }
}

describe('Finalizers', () => {
  it('adds every registered finalizer to a live object in one resourceVersion-locked patch and updates the object in place', async () => {
    const calls: string[] = [];
    const f = new Finalizers().register('a.io/x', () => void calls.push('x')).register('a.io/y', { finalize: () => void calls.push('y') });
    const w = new Recorder();
    const o = obj(['other.io/keep']);
    expect(await f.finalize(w, o)).toEqual({ updated: true, gone: false });
    expect(w.patches).toEqual([
      {
        key: { namespace: 'ns', name: 'a' },
        body: { metadata: { finalizers: ['other.io/keep', 'a.io/x', 'a.io/y'], resourceVersion: '7' } },
      },
    ]);
    expect(o.metadata.resourceVersion).toBe('8');
    expect(calls).toEqual([]);
    expect(await f.finalize(w, o)).toEqual({ updated: false, gone: false });
    expect(w.patches).toHaveLength(1);
  });

  it('on a deleting object runs each present cleanup once, removes what succeeded, and says when the object is gone', async () => {
    const calls: string[] = [];
    const f = new Finalizers().register('a.io/x', () => void calls.push('x')).register('a.io/y', () => void calls.push('y'));
    const w = new Recorder();
    expect(await f.finalize(w, obj(['a.io/y'], true))).toEqual({ updated: true, gone: true });
    expect(calls).toEqual(['y']);
    expect(w.patches[0]?.body).toEqual({ metadata: { finalizers: [], resourceVersion: '7' } });
  });

  it('keeps the finalizer of a failed or waiting cleanup, writes the others, then throws or returns requeueAfter', async () => {
    const boom = new Error('downstream unreachable');
    const f = new Finalizers()
      .register('a.io/fails', () => {
        throw boom;
      })
      .register('a.io/waits', () => Promise.resolve({ requeueAfter: 500 }))
      .register('a.io/done', () => {});
    const w = new Recorder();
    const o = obj(['a.io/fails', 'a.io/waits', 'a.io/done', 'x.io/foreign'], true);
    await expect(f.finalize(w, o)).rejects.toBe(boom);
    expect(w.patches[0]?.body).toEqual({ metadata: { finalizers: ['a.io/fails', 'a.io/waits', 'x.io/foreign'], resourceVersion: '7' } });

    const g = new Finalizers().register('a.io/waits', () => ({ requeueAfter: 500 })).register('a.io/soon', () => ({ requeueAfter: 20 }));
    expect(await g.finalize(new Recorder(), obj(['a.io/waits', 'a.io/soon'], true))).toEqual({
      updated: false,
      gone: false,
      requeueAfter: 20,
    });
  });

  it('throws an AggregateError naming every failed cleanup', async () => {
    const f = new Finalizers()
      .register('a.io/one', () => Promise.reject(new Error('one failed')))
      .register('a.io/two', () => Promise.reject(new Error('two failed')));
    const err = await f.finalize(new Recorder(), obj(['a.io/one', 'a.io/two'], true)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AggregateError);
    expect((err as Error).message).toMatch(/one failed.*two failed/);
  });

  it('takes a NotFound on the write as done: the object is gone', async () => {
    const f = new Finalizers().register('a.io/x', () => {});
    const w = new Recorder();
    w.failWith = ApiError.fromResponse(404, JSON.stringify({ kind: 'Status', code: 404, reason: 'NotFound', message: 'gone' }));
    const o = obj(['a.io/x'], true);
    expect(await f.finalize(w, o)).toEqual({ updated: false, gone: true });
    expect(o.metadata.finalizers).toEqual([]);
    w.failWith = ApiError.fromResponse(409, JSON.stringify({ kind: 'Status', code: 409, reason: 'Conflict', message: 'modified' }));
    await expect(f.finalize(w, obj(['a.io/x'], true))).rejects.toMatchObject({ reason: 'Conflict' });
  });

  it('refuses a second registration of one name, bad names and non-functions', () => {
    const f = new Finalizers().register('a.io/x', () => {});
    expect(() => f.register('a.io/x', () => {})).toThrow(FinalizerAlreadyRegisteredError);
    expect(() => f.register('not a name', () => {})).toThrow(InvalidFinalizerError);
    expect(() => f.register('a.io/y', {} as never)).toThrow(/expected a function/);
  });
});
