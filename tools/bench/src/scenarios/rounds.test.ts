import { describe, expect, it } from 'vitest';
import { rotated } from './rounds.js';

describe('rounds', () => {
  it('puts every implementation in every position once over as many rounds as implementations', () => {
    const orders = [0, 1, 2].map((round) => rotated(['mcr', 'client-node', 'go-mcr'], round));
    expect(orders).toEqual([
      ['mcr', 'client-node', 'go-mcr'],
      ['client-node', 'go-mcr', 'mcr'],
      ['go-mcr', 'mcr', 'client-node'],
    ]);
    for (const name of ['mcr', 'client-node', 'go-mcr']) {
      expect(orders.map((o) => o.indexOf(name)).sort()).toEqual([0, 1, 2]);
    }
    expect(rotated([], 3)).toEqual([]);
  });
});
