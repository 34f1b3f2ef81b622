import { expect, it } from 'vitest';
import { quantityNanos } from './quantity.js';

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
