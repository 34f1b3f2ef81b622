/** Merge patches computed from two versions of an object. */
import { describe, expect, it } from 'vitest';
import { createMergePatch, mergeFrom } from './merge-patch.js';

describe('createMergePatch', () => {
  it('sets changed and added fields, nulls removed ones, recurses into objects and replaces arrays', () => {
    const before = { metadata: { name: 'a', labels: { keep: '1', drop: '2' } }, spec: { list: [1, 2], n: 1, gone: 'x' } };
    const after = { metadata: { name: 'a', labels: { keep: '1', added: '3' } }, spec: { list: [1, 2, 3], n: 2 } };
    expect(createMergePatch(before, after)).toEqual({
      metadata: { labels: { drop: null, added: '3' } },
      spec: { list: [1, 2, 3], n: 2, gone: null },
    });
  });

  it('is empty when nothing changed, also when a property went from absent to undefined', () => {
    expect(createMergePatch({ a: { b: [1, { c: 2 }] } }, { a: { b: [1, { c: 2 }] }, d: undefined })).toEqual({});
  });

  it('drops undefined inside new values and replaces a scalar by an object', () => {
    expect(createMergePatch({ a: 1 }, { a: { b: 1, c: undefined } })).toEqual({ a: { b: 1 } });
  });
});

describe('mergeFrom', () => {
  it('makes a merge Patch, with the resourceVersion as precondition when asked', () => {
    const before = { metadata: { name: 'a', resourceVersion: '5' }, data: { x: '1' } };
    const after = { metadata: { name: 'a', resourceVersion: '5' }, data: { x: '2' } };
    expect(mergeFrom(before, after)).toEqual({ type: 'merge', body: { data: { x: '2' } } });
    expect(mergeFrom(before, after, { optimisticLock: true })).toEqual({
      type: 'merge',
      body: { data: { x: '2' }, metadata: { resourceVersion: '5' } },
    });
    expect(() => mergeFrom({ metadata: {} }, { metadata: {} }, { optimisticLock: true })).toThrow(/resourceVersion/);
  });
});
