import { describe, expect, it } from 'vitest';
import { spread } from './stats.js';
import { formatRange } from './table.js';

describe('formatRange', () => {
  it('shows min-max of a figure taken more than once, and nothing for one sample or none', () => {
    expect(formatRange(spread([2.04, 1.97, 2.36]))).toBe('2.0-2.4');
    expect(formatRange(spread([4489.2, 4703.9, 4587]), 0)).toBe('4,489-4,704');
    expect(formatRange(spread([2.3]))).toBe('');
    expect(formatRange(undefined)).toBe('');
  });
});
