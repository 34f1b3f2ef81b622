/** nowTimestamp: metav1.Time's text, reused within a second and never stale across one. */
import { expect, it } from 'vitest';
import { nowTimestamp } from './object-meta.js';

it('formats to the second, as metav1.Time serializes, whatever second came before', () => {
  expect(nowTimestamp(new Date('2026-11-28T12:00:00.999Z'))).toBe('2026-11-28T12:00:00Z');
  expect(nowTimestamp(new Date('2026-11-28T12:00:00.001Z'))).toBe('2026-11-28T12:00:00Z');
  expect(nowTimestamp(new Date('2026-11-28T12:00:01.000Z'))).toBe('2026-11-28T12:00:01Z');
  expect(nowTimestamp(new Date('2026-11-28T11:59:59.500Z'))).toBe('2026-11-28T11:59:59Z');
  expect(nowTimestamp()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  expect(() => nowTimestamp(new Date(Number.NaN))).toThrow(RangeError);
});
