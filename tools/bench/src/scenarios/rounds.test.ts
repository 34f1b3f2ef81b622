import { describe, expect, it } from 'vitest';
import { rotated, turnOrder } from './rounds.js';

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

  it('runs the first implementation once more, as round -1, before all the others when the first turn is discarded', () => {
    const turns = (discard: boolean) => turnOrder(['mcr', 'client-node'], 2, discard).map((t) => `${t.item}@${t.round}`);
    expect(turns(false)).toEqual(['mcr@0', 'client-node@0', 'client-node@1', 'mcr@1']);
    expect(turns(true)).toEqual(['mcr@-1', 'mcr@0', 'client-node@0', 'client-node@1', 'mcr@1']);
    expect(turnOrder([], 2, true)).toEqual([]);
  });

  it("marks each implementation's first turn, which warms its new runner longer, and only that one", () => {
    const firsts = (discard: boolean) =>
      turnOrder(['mcr', 'client-node'], 2, discard)
        .filter((t) => t.first)
        .map((t) => `${t.item}@${t.round}`);
    expect(firsts(false)).toEqual(['mcr@0', 'client-node@0']);
    // With the first turn left out, mcr's runner starts in round -1; its round 0 finds it warm.
    expect(firsts(true)).toEqual(['mcr@-1', 'client-node@0']);
  });
});
