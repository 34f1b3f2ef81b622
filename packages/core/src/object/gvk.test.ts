import { describe, expect, test } from 'vitest';
import { formatApiVersion, kindKey, objectKindOf, parseApiVersion } from './gvk.js';

describe('apiVersion parsing', () => {
  test('core and named groups', () => {
    expect(parseApiVersion('v1')).toEqual({ group: '', version: 'v1' });
    expect(parseApiVersion('apps/v1')).toEqual({ group: 'apps', version: 'v1' });
    expect(formatApiVersion('', 'v1')).toBe('v1');
    expect(formatApiVersion('coordination.k8s.io', 'v1')).toBe('coordination.k8s.io/v1');
  });
  test('kind keys and missing kinds', () => {
    expect(kindKey({ apiVersion: 'apps/v1', kind: 'Deployment' })).toBe('apps/v1, Kind=Deployment');
    expect(() => objectKindOf({ metadata: { name: 'x' } })).toThrow(/no apiVersion\/kind/);
  });
});
