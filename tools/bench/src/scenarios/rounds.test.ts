import { describe, expect, it } from 'vitest';
import type { ImplSpec } from '../runner-process.js';
import { rotated, takeTurns } from './rounds.js';

const impl = (name: string): ImplSpec => ({ name }) as ImplSpec;

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

  it('skips an implementation in later rounds once its turn failed, and goes on with the others', async () => {
    const turns: string[] = [];
    const failures: string[] = [];
    await takeTurns(
      [impl('a'), impl('b')],
      3,
      async (i, round) => {
        turns.push(`${i.name}${round}`);
        if (i.name === 'b' && round === 0) throw new Error('no start');
        await Promise.resolve();
      },
      (i, err) => failures.push(`${i.name}: ${(err as Error).message}`),
    );
    expect(turns).toEqual(['a0', 'b0', 'a1', 'a2']);
    expect(failures).toEqual(['b: no start']);
  });
});
