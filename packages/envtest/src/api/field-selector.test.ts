import { describe, expect, test } from 'vitest';
import { FieldSelector, SelectorParseError } from './field-selector.js';

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
