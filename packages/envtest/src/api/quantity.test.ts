import { expect, it } from 'vitest';
import { canonicalQuantity, quantityNanos } from './quantity.js';

it('reads quantities exactly, in every suffix family, so sums compare as the real server compares them', () => {
  expect(quantityNanos('1')).toBe(1_000_000_000n);
  expect(quantityNanos(1)).toBe(1_000_000_000n);
  expect(quantityNanos(0.5)).toBe(500_000_000n);
  expect(quantityNanos('500m')).toBe(500_000_000n);
  expect(quantityNanos('100m')! + quantityNanos('200m')!).toBe(quantityNanos('300m'));
  expect(quantityNanos('1Gi')).toBe(quantityNanos('1024Mi'));
  expect(quantityNanos('1Gi')).toBe(quantityNanos(1073741824));
  expect(quantityNanos('1.5Ki')).toBe(1536n * 1_000_000_000n);
  expect(quantityNanos('2k')).toBe(quantityNanos('2e3'));
  expect(quantityNanos('1E')).toBe(10n ** 27n);
  expect(quantityNanos('12n')).toBe(12n);
  expect(quantityNanos('.5')).toBe(500_000_000n);
  expect(quantityNanos('-1')).toBe(-1_000_000_000n);
  for (const bad of ['', 'abc', '1x', '1 Gi', '.', null, {}, undefined]) expect(quantityNanos(bad), JSON.stringify(bad)).toBeUndefined();
});

it('writes a quantity back as Go does: decimal with the largest exact suffix, binary only for whole multiples of 1024', () => {
  const cases: [unknown, string][] = [
    [0.5, '500m'],
    ['1000m', '1'],
    ['1024Mi', '1Gi'],
    ['1.5Gi', '1536Mi'],
    ['1500', '1500'],
    ['2000', '2k'],
    ['2e3', '2e3'],
    ['1200e-3', '1200e-3'],
    ['512Ki', '512Ki'],
    ['0.5Ki', '512'],
    ['-1.5', '-1500m'],
    ['0.0000001m', '1n'],
    ['0Gi', '0'],
  ];
  for (const [sent, stored] of cases) expect(canonicalQuantity(sent), JSON.stringify(sent)).toBe(stored);
  expect(canonicalQuantity('not a quantity')).toBe('not a quantity');
});

it('rounds up to whole milli-units when asked, as core/v1 defaults a ResourceList', () => {
  expect(canonicalQuantity('0.0000001m', { roundUpToMilli: true })).toBe('1m');
  expect(canonicalQuantity('1.0001', { roundUpToMilli: true })).toBe('1001m');
  expect(canonicalQuantity('-0.5m', { roundUpToMilli: true })).toBe('-1m');
  expect(canonicalQuantity('1Gi', { roundUpToMilli: true })).toBe('1Gi');
});
