import { describe, expect, it } from 'vitest';
import { ShardingConfigError } from './errors.js';
import { leaseName, sanitizeDns1123 } from './names.js';
import { ownerOf, score, uniformHash, validateWeight, type Peer } from './rendezvous.js';

const names = Array.from({ length: 1000 }, (_, i) => `cluster-${i}`);

function split(peers: Peer[]): Map<string, number> {
  const counts = new Map<string, number>(peers.map((p) => [p.id, 0]));
  for (const n of names) {
    const owner = ownerOf(n, peers)!;
    counts.set(owner.id, counts.get(owner.id)! + 1);
  }
  return counts;
}

describe('weighted rendezvous hashing', () => {
  it('splits 1,000 clusters about 1:3 between weights 1 and 3', () => {
    const counts = split([
      { id: 'replica-a', weight: 1 },
      { id: 'replica-b', weight: 3 },
    ]);
    // Expected 250 / 750; a binomial standard deviation is ~14, so ±60 is over 4 sigma.
    expect(counts.get('replica-a')).toBeGreaterThan(190);
    expect(counts.get('replica-a')).toBeLessThan(310);
    expect(counts.get('replica-a')! + counts.get('replica-b')!).toBe(1000);
  });

  it('stays proportional with large weights, where a multiplied 64-bit hash would wrap around', () => {
    const counts = split([
      { id: 'x', weight: 1_000_000 },
      { id: 'y', weight: 3_000_000 },
      { id: 'z', weight: 4_000_000 },
    ]);
    expect(counts.get('x')).toBeGreaterThan(70);
    expect(counts.get('x')).toBeLessThan(180);
    expect(counts.get('y')).toBeGreaterThan(300);
    expect(counts.get('y')).toBeLessThan(450);
    expect(counts.get('z')).toBeGreaterThan(420);
    expect(counts.get('z')).toBeLessThan(580);
  });

  it('gives the same owner whatever the order of the peer list', () => {
    const peers: Peer[] = [
      { id: 'a', weight: 1 },
      { id: 'b', weight: 2 },
      { id: 'c', weight: 1 },
    ];
    const reversed = [...peers].reverse();
    for (const n of names.slice(0, 200)) expect(ownerOf(n, reversed)!.id).toBe(ownerOf(n, peers)!.id);
  });

  it('scores by weight: the same peer with a higher weight scores higher for every cluster', () => {
    for (const n of names.slice(0, 100)) expect(score(n, { id: 'p', weight: 2 })).toBeGreaterThan(score(n, { id: 'p', weight: 1 }));
  });

  it("moves only the clusters the new peer takes when a peer joins, and only the leaver's when one leaves", () => {
    const three: Peer[] = [
      { id: 'a', weight: 1 },
      { id: 'b', weight: 1 },
      { id: 'c', weight: 1 },
    ];
    const four: Peer[] = [...three, { id: 'd', weight: 1 }];
    let moved = 0;
    for (const n of names) {
      const before = ownerOf(n, three)!.id;
      const after = ownerOf(n, four)!.id;
      if (before !== after) {
        expect(after).toBe('d');
        moved++;
      }
    }
    expect(moved).toBeGreaterThan(180);
    expect(moved).toBeLessThan(320);
  });

  it('has no owner without peers, and hashes into the open interval (0, 1)', () => {
    expect(ownerOf('x', [])).toBeUndefined();
    for (const n of names.slice(0, 100)) {
      const u = uniformHash(n, 'p');
      expect(u).toBeGreaterThan(0);
      expect(u).toBeLessThan(1);
    }
    expect(uniformHash('a|b', 'c')).not.toBe(uniformHash('a', 'b|c'));
  });

  it('rejects weights that are not positive finite numbers', () => {
    for (const w of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => validateWeight(w)).toThrow(ShardingConfigError);
    expect(validateWeight(2.5)).toBe(2.5);
  });
});

describe('lease names', () => {
  it('keeps valid short names readable and gives changed or long names a distinguishing hash', () => {
    expect(leaseName('mcr-fence', 'member-1')).toBe('mcr-fence-member-1');
    const a = leaseName('mcr-fence', 'a_b');
    const b = leaseName('mcr-fence', 'a-b');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^mcr-fence-a-b-[0-9a-f]{10}$/);
    const long = leaseName('mcr-fence', `kubeconfig/${'x'.repeat(200)}+ctx`);
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/);
    expect(leaseName('p', '___')).toMatch(/^p-[0-9a-f]{10}$/);
    expect(sanitizeDns1123('-Prod/EU_1.')).toBe('prod-eu-1');
  });
});
