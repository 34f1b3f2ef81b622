import { describe, expect, it } from 'vitest';
import { InvalidListOptionsError } from './errors.js';
import { parseFieldSelector } from './field-selector.js';

describe('parseFieldSelector', () => {
  it('parses =, == and != terms, trimming spaces', () => {
    expect(parseFieldSelector('spec.nodeName=n1, status.phase==Running,metadata.name!=x')).toEqual([
      { field: 'spec.nodeName', op: '=', value: 'n1' },
      { field: 'status.phase', op: '=', value: 'Running' },
      { field: 'metadata.name', op: '!=', value: 'x' },
    ]);
  });

  it('honours escapes for commas, equals signs and backslashes', () => {
    expect(parseFieldSelector('a\\=b=c\\,d,e=f\\\\')).toEqual([
      { field: 'a=b', op: '=', value: 'c,d' },
      { field: 'e', op: '=', value: 'f\\' },
    ]);
  });

  it('accepts empty values and an empty selector', () => {
    expect(parseFieldSelector('spec.x=')).toEqual([{ field: 'spec.x', op: '=', value: '' }]);
    expect(parseFieldSelector('')).toEqual([]);
  });

  it('takes a map as equalities', () => {
    expect(parseFieldSelector({ 'spec.nodeName': 'n1' })).toEqual([{ field: 'spec.nodeName', op: '=', value: 'n1' }]);
  });

  it('refuses terms without an operator or a field', () => {
    expect(() => parseFieldSelector('spec.nodeName')).toThrow(InvalidListOptionsError);
    expect(() => parseFieldSelector('=x')).toThrow(/"=x" is not field=value/);
    expect(() => parseFieldSelector({ '': 'x' })).toThrow(InvalidListOptionsError);
  });
});
