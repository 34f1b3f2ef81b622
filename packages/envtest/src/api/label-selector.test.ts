import { describe, expect, test } from 'vitest';
import { FieldSelector } from './field-selector.js';
import { LabelSelector, SelectorParseError } from './label-selector.js';

describe('LabelSelector', () => {
  const cases: [string, Record<string, string> | undefined, boolean][] = [
    ['', undefined, true],
    ['a=b', { a: 'b' }, true],
    ['a==b', { a: 'c' }, false],
    ['a!=b', {}, true],
    ['a!=b', { a: 'b' }, false],
    ['a in (b, c)', { a: 'c' }, true],
    ['a in (b,c)', {}, false],
    ['a notin (b,c)', {}, true],
    ['a notin (b,c)', { a: 'b' }, false],
    ['a', { a: '' }, true],
    ['!a', { a: '' }, false],
    ['!a', { b: '' }, true],
    ['example.com/tier=web,env', { 'example.com/tier': 'web', env: 'prod' }, true],
    ['example.com/tier=web,env', { 'example.com/tier': 'web' }, false],
    ['n>5', { n: '7' }, true],
    ['n<5', { n: '7' }, false],
    ['a=', { a: '' }, true],
  ];
  test.each(cases)('%s matches %o → %s', (selector, labels, expected) => {
    expect(LabelSelector.parse(selector).matches(labels)).toBe(expected);
  });

  test.each(['a in (b', 'a=b c', '=b', 'a b', 'Bad Key=1', 'a=-bad-', 'n>x', 'a in b'])('"%s" is a parse error', (selector) => {
    expect(() => LabelSelector.parse(selector)).toThrow(SelectorParseError);
  });
});

describe('FieldSelector', () => {
  const obj = { metadata: { name: 'a,b', namespace: 'ns' } };
  test('matches metadata.name and metadata.namespace with =, == and !=, with escapes', () => {
    expect(FieldSelector.parse('metadata.name=a\\,b').matches(obj)).toBe(true);
    expect(FieldSelector.parse('metadata.namespace==ns,metadata.name!=x').matches(obj)).toBe(true);
    expect(FieldSelector.parse('metadata.namespace!=ns').matches(obj)).toBe(false);
    expect(FieldSelector.parse('').empty).toBe(true);
  });

  test('other fields are "field label not supported"', () => {
    expect(() => FieldSelector.parse('spec.x=1')).toThrow('field label not supported: spec.x');
    expect(() => FieldSelector.parse('metadata.name')).toThrow(SelectorParseError);
  });

  test('exactValue tells the pinned name', () => {
    expect(FieldSelector.parse('metadata.name=x').exactValue('metadata.name')).toBe('x');
    expect(FieldSelector.parse('metadata.name!=x').exactValue('metadata.name')).toBeUndefined();
  });
});
