import { describe, expect, test } from 'vitest';
import { JsonPatchError, applyJsonPatch } from './json-patch.js';
import { applyMergePatch } from './merge-patch.js';
import { StrategicMergePatchError, applyStrategicMergePatch } from './strategic-merge-patch.js';

describe('merge patch (RFC 7386)', () => {
  test('merges objects, deletes with null, replaces arrays, does not mutate the target', () => {
    const target = { a: { b: 1, c: 2 }, list: [1, 2], keep: true };
    const out = applyMergePatch(target, { a: { b: null, d: 3 }, list: [3] });
    expect(out).toEqual({ a: { c: 2, d: 3 }, list: [3], keep: true });
    expect(target).toEqual({ a: { b: 1, c: 2 }, list: [1, 2], keep: true });
  });
});

describe('JSON patch (RFC 6902)', () => {
  test('add, remove, replace, move, copy, test, with escaped pointers and "-"', () => {
    const doc = { metadata: { labels: { 'a/b': 'x' } }, list: [1, 2] };
    const out = applyJsonPatch(doc, [
      { op: 'test', path: '/metadata/labels/a~1b', value: 'x' },
      { op: 'add', path: '/list/-', value: 3 },
      { op: 'add', path: '/list/0', value: 0 },
      { op: 'remove', path: '/list/1' },
      { op: 'replace', path: '/metadata/labels/a~1b', value: 'y' },
      { op: 'copy', from: '/metadata/labels', path: '/copied' },
      { op: 'move', from: '/copied', path: '/moved' },
    ]);
    expect(out).toEqual({ metadata: { labels: { 'a/b': 'y' } }, list: [0, 2, 3], moved: { 'a/b': 'y' } });
  });

  test.each([
    [[{ op: 'test', path: '/a', value: 2 }], 'testing value'],
    [[{ op: 'remove', path: '/missing' }], 'nonexistent'],
    [[{ op: 'replace', path: '/missing/x', value: 1 }], 'missing'],
    [[{ op: 'add', path: '/list/9', value: 1 }], 'invalid index'],
    [[{ op: 'frobnicate', path: '/a' }], 'unexpected kind'],
    [{ op: 'add' }, 'array'],
  ])('%j fails with a JsonPatchError', (patch, message) => {
    expect(() => applyJsonPatch({ a: 1, list: [] }, patch)).toThrow(JsonPatchError);
    expect(() => applyJsonPatch({ a: 1, list: [] }, patch)).toThrow(message);
  });
});

describe('strategic merge patch', () => {
  const base = {
    metadata: { finalizers: ['a'], ownerReferences: [{ uid: '1', name: 'one' }], labels: { x: '1' } },
    status: {
      conditions: [
        { type: 'Ready', status: 'False' },
        { type: 'Synced', status: 'True' },
      ],
    },
    data: { k: 'v' },
  };

  test('finalizers are a set union; ownerReferences merge by uid; conditions by type', () => {
    const out = applyStrategicMergePatch(base, {
      metadata: {
        finalizers: ['b', 'a'],
        ownerReferences: [
          { uid: '2', name: 'two' },
          { uid: '1', name: 'uno' },
        ],
      },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    }) as typeof base;
    // Patch order first; items only the server has keep their place relative to the patch's (normalizeElementOrder).
    expect(out.metadata.finalizers).toEqual(['b', 'a']);
    expect(out.metadata.ownerReferences).toEqual([
      { uid: '2', name: 'two' },
      { uid: '1', name: 'uno' },
    ]);
    expect(out.status.conditions).toEqual([
      { type: 'Ready', status: 'True' },
      { type: 'Synced', status: 'True' },
    ]);
  });

  test('merged lists: new items lead, server-only items slot in before the patch items they preceded', () => {
    const out = applyStrategicMergePatch({ metadata: { finalizers: ['x', 'y', 'z'] } }, { metadata: { finalizers: ['new', 'y'] } }) as any;
    expect(out.metadata.finalizers).toEqual(['new', 'x', 'y', 'z']);
    const ordered = applyStrategicMergePatch(
      { metadata: { finalizers: ['x', 'y'] } },
      { metadata: { finalizers: ['z'], '$setElementOrder/finalizers': ['y', 'z', 'x'] } },
    ) as any;
    expect(ordered.metadata.finalizers).toEqual(['y', 'z', 'x']);
  });

  test('directives: $patch delete in a keyed list, $patch replace, $deleteFromPrimitiveList, $retainKeys', () => {
    const out = applyStrategicMergePatch(base, {
      metadata: {
        ownerReferences: [{ uid: '1', $patch: 'delete' }],
        $deleteFromPrimitiveList: undefined,
        '$deleteFromPrimitiveList/finalizers': ['a'],
      },
      status: { $patch: 'replace', phase: 'Done' },
      data: { $retainKeys: ['n'], n: 'm' },
    }) as any;
    expect(out.metadata.ownerReferences).toEqual([]);
    expect(out.metadata.finalizers).toEqual([]);
    expect(out.status).toEqual({ phase: 'Done' });
    expect(out.data).toEqual({ n: 'm' });
  });

  test('plain maps merge and null deletes; unknown lists are replaced', () => {
    const out = applyStrategicMergePatch(
      { data: { a: '1', b: '2' }, spec: { items: [1, 2] } },
      { data: { a: null, c: '3' }, spec: { items: [3] } },
    );
    expect(out).toEqual({ data: { b: '2', c: '3' }, spec: { items: [3] } });
  });

  test('a non-object patch or an unknown directive is an error', () => {
    expect(() => applyStrategicMergePatch(base, [])).toThrow(StrategicMergePatchError);
    expect(() => applyStrategicMergePatch(base, { data: { $patch: 'explode' } })).toThrow(StrategicMergePatchError);
  });
});
