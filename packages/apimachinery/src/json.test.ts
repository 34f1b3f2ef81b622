/**
 * cloneJson and jsonEqual: a deep copy of API objects that shares nothing with the original, and equality as
 * serialized.
 */
import { expect, it } from 'vitest';
import { cloneJson, jsonEqual } from './json.js';

it('copies objects and arrays deeply, sharing nothing, and keeps scalars', () => {
  const original = { metadata: { name: 'a', labels: { x: '1' } }, spec: { list: [1, 'two', null, { deep: true }] }, n: 0, f: false };
  const copy = cloneJson(original);
  expect(copy).toEqual(original);
  copy.metadata.labels.x = '2';
  (copy.spec.list[3] as { deep: boolean }).deep = false;
  expect(original.metadata.labels.x).toBe('1');
  expect((original.spec.list[3] as { deep: boolean }).deep).toBe(true);
  expect(cloneJson(null)).toBeNull();
  expect(cloneJson('s')).toBe('s');
});

it('copies a frozen object into a mutable one', () => {
  const frozen: { a: { b: number } } = Object.freeze({ a: Object.freeze({ b: 1 }) });
  const copy = cloneJson(frozen);
  expect(Object.isFrozen(copy)).toBe(false);
  copy.a.b = 2;
  expect(frozen.a.b).toBe(1);
});

it('keeps a "__proto__" key from the wire as an own property, without touching the prototype', () => {
  const parsed = JSON.parse('{"data":{"__proto__":{"polluted":true}}}') as { data: Record<string, unknown> };
  const copy = cloneJson(parsed);
  expect(Object.getPrototypeOf(copy.data)).toBe(Object.prototype);
  expect(Object.keys(copy.data)).toEqual(['__proto__']);
  expect((copy.data as { polluted?: boolean }).polluted).toBeUndefined();
  expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
});

it('copies what is not plain JSON (a Date or Map a transform added) with structuredClone', () => {
  const at = new Date('2026-11-26T10:00:00Z');
  const copy = cloneJson({ at, seen: new Map([['k', 1]]) });
  expect(copy.at).toBeInstanceOf(Date);
  expect(copy.at).not.toBe(at);
  expect(copy.at.getTime()).toBe(at.getTime());
  expect(copy.seen.get('k')).toBe(1);
});

it('compares as the server sees serialized values: key order aside, an undefined property the same as an absent one', () => {
  expect(jsonEqual({ a: 1, b: { c: [1, { d: 'x' }] } }, { b: { c: [1, { d: 'x' }] }, a: 1 })).toBe(true);
  expect(jsonEqual({ a: 1, gone: undefined }, { a: 1 })).toBe(true);
  expect(jsonEqual({ a: 1 }, { a: 1, gone: undefined })).toBe(true);
  expect(jsonEqual({ a: 1 }, { a: 1, b: null })).toBe(false);
  expect(jsonEqual({ a: 1, b: 2 }, { a: 1 })).toBe(false);
  expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
  expect(jsonEqual({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
  expect(jsonEqual({ a: [1] }, { a: { 0: 1 } })).toBe(false);
  expect(jsonEqual([], {})).toBe(false);
  expect(jsonEqual('1', 1)).toBe(false);
  expect(jsonEqual(null, {})).toBe(false);
});

it('reads only own properties, so a "__proto__" key from the wire is compared as data', () => {
  const parsed = JSON.parse('{"__proto__":{"x":1}}') as Record<string, unknown>;
  expect(jsonEqual(parsed, {})).toBe(false);
  expect(jsonEqual(parsed, JSON.parse('{"__proto__":{"x":1}}'))).toBe(true);
  expect(jsonEqual(parsed, JSON.parse('{"__proto__":{"x":2}}'))).toBe(false);
});
