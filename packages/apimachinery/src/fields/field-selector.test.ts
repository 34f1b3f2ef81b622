import { describe, expect, it } from 'vitest';
import { FieldSelectorError, parseFieldSelector } from './field-selector.js';

describe('parseFieldSelector', () => {
  it('reads =, == and != terms, ANDed by commas, with escapes in values', () => {
    expect(parseFieldSelector('metadata.name=a\\,b,metadata.namespace==ns,status.phase!=Done')).toEqual([
      { field: 'metadata.name', op: '=', value: 'a,b' },
      { field: 'metadata.namespace', op: '=', value: 'ns' },
      { field: 'status.phase', op: '!=', value: 'Done' },
    ]);
    expect(parseFieldSelector('')).toEqual([]);
    expect(parseFieldSelector('spec.nodeName=')).toEqual([{ field: 'spec.nodeName', op: '=', value: '' }]);
    expect(parseFieldSelector('a=1, b=2 ')).toEqual([
      { field: 'a', op: '=', value: '1' },
      { field: 'b', op: '=', value: '2 ' },
    ]);
  });

  it('refuses a term without an operator or without a field, quoting it as the API server does', () => {
    expect(() => parseFieldSelector('metadata.name')).toThrow("invalid selector: 'metadata.name'; can't understand 'metadata.name'");
    expect(() => parseFieldSelector('a=b,=c')).toThrow(FieldSelectorError);
  });
});
