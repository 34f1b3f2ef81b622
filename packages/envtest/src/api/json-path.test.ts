import { describe, expect, test } from 'vitest';
import { humanDuration } from './human-duration.js';
import { evaluateJsonPath, parseJsonPath } from './json-path.js';

describe('printer-column JSONPath', () => {
  const obj = {
    spec: { size: 3, items: [{ n: 'a' }, { n: 'b' }] },
    status: {
      conditions: [
        { type: 'Synced', status: 'False' },
        { type: 'Ready', status: 'True' },
      ],
    },
  };
  test.each([
    ['.spec.size', 3],
    ['{.spec.size}', 3],
    ['.spec.items[1].n', 'b'],
    ['.spec.items[*].n', 'a'],
    ['.status.conditions[?(@.type=="Ready")].status', 'True'],
    [".status.conditions[?(@.type=='Synced')].status", 'False'],
    ['.spec.missing.deeper', undefined],
  ])('%s → %j', (path, expected) => {
    expect(evaluateJsonPath(obj, parseJsonPath(path)!)).toEqual(expected);
  });

  test('unsupported expressions parse to undefined instead of throwing', () => {
    expect(parseJsonPath('.spec..size')).toBeUndefined();
    expect(parseJsonPath('.spec[?(@.a>1)]')).toBeUndefined();
  });
});

describe('humanDuration', () => {
  test.each([
    [-5000, '<invalid>'],
    [0, '0s'],
    [119_000, '119s'],
    [200_000, '3m20s'],
    [3_600_000, '60m'],
    [4 * 3_600_000 + 60_000, '4h1m'],
    [30 * 3_600_000, '30h'],
    [3 * 86_400_000 + 3_600_000, '3d1h'],
    [40 * 86_400_000, '40d'],
    [3 * 365 * 86_400_000 + 86_400_000, '3y1d'],
    [10 * 365 * 86_400_000, '10y'],
  ])('%i ms → %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});
