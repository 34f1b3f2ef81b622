import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../object/types.js';
import { CacheBudget, type CacheLimitExceededError } from './budget.js';
import { Store } from './store.js';

const cm = (name: string, rv: string, data = ''): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: 'ns', name, resourceVersion: rv },
  data: { d: data },
});

describe('CacheBudget fed by a Store', () => {
  test('counts stored and relist-buffered objects once each; deletes, relists and release give them back', () => {
    const breaches: CacheLimitExceededError[] = [];
    const budget = new CacheBudget({ maxObjects: 100 }, 'member', (e) => breaches.push(e));
    const store = new Store({ accounting: budget });
    store.beginReplace();
    store.stage(cm('a', '1'));
    store.stage(cm('b', '1'));
    store.stage(cm('b', '2')); // the same object twice in one relist counts once
    expect(budget.held().objects).toBe(2);
    store.commitReplace();
    expect(budget.held().objects).toBe(2);
    store.apply(cm('c', '3'));
    store.apply(cm('c', '4')); // an update holds no more
    store.delete(cm('a', '5'));
    store.delete(cm('zzz', '6')); // never stored: gives nothing back
    expect(budget.held().objects).toBe(2);
    // A relist holds old and new until it commits: both are in memory then.
    store.beginReplace();
    store.stage(cm('b', '7'));
    expect(budget.held().objects).toBe(3);
    store.commitReplace(); // c vanished
    expect(budget.held().objects).toBe(1);
    store.release();
    expect(budget.held()).toEqual({ objects: 0, bytes: 0 });
    expect(breaches).toEqual([]);
  });

  test('passing maxObjects reports one breach, naming the cluster, the limit and what is held', () => {
    const breaches: CacheLimitExceededError[] = [];
    const budget = new CacheBudget({ maxObjects: 2 }, 'member', (e) => breaches.push(e));
    const store = new Store({ accounting: budget });
    for (const name of ['a', 'b', 'c', 'd']) store.apply(cm(name, '1'));
    expect(breaches).toHaveLength(1);
    expect(breaches[0]).toMatchObject({
      name: 'CacheLimitExceededError',
      cluster: 'member',
      limit: 'objects',
      held: 3,
      max: 2,
      retryable: true,
    });
    expect(breaches[0]!.message).toBe('cluster "member" holds more than 2 objects in its cache (limit maxObjects; 3 now)');
    expect(budget.exceeded).toBe(breaches[0]);
  });

  test('maxBytes measures objects as JSON, updates by their difference', () => {
    const breaches: CacheLimitExceededError[] = [];
    const budget = new CacheBudget({ maxBytes: 5_000 }, 'member', (e) => breaches.push(e));
    const store = new Store({ accounting: budget });
    store.apply(cm('a', '1', 'x'.repeat(1_000)));
    const one = budget.held().bytes;
    expect(one).toBeGreaterThan(1_000);
    store.apply(cm('a', '2', 'x'.repeat(2_000)));
    expect(budget.held().bytes).toBe(one + 1_000);
    store.apply(cm('b', '3', 'x'.repeat(3_000)));
    expect(breaches.map((b) => b.limit)).toEqual(['bytes']);
    store.delete(cm('b', '4'));
    expect(budget.held().bytes).toBe(one + 1_000);
  });

  test('objects are not measured in bytes unless maxBytes is set', () => {
    const budget = new CacheBudget({ maxObjects: 10 }, 'member', () => {});
    expect(budget.sizeOf).toBeUndefined();
    new Store({ accounting: budget }).apply(cm('a', '1', 'x'.repeat(1_000)));
    expect(budget.held()).toEqual({ objects: 1, bytes: 0 });
  });

  test('a limit that is not a positive integer is refused, naming it', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, '10' as unknown as number]) {
      expect(() => new CacheBudget({ maxObjects: bad }, 'member', () => {}), String(bad)).toThrow(
        /cacheLimits\.maxObjects must be a positive integer/,
      );
    }
    expect(() => new CacheBudget({ maxBytes: -5 }, 'member', () => {})).toThrow(/cacheLimits\.maxBytes/);
  });
});
