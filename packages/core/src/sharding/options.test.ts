import { describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { newManager } from '../manager/manager.js';
import { ManagerConfigError } from '../manager/errors.js';
import { ShardingConfigError } from './errors.js';
import { resolveSharding } from './options.js';

describe('sharding options', () => {
  it('fills defaults: weight 1, a unique id, the documented timings', () => {
    const a = resolveSharding({ groupName: 'workers' }, 'ns');
    const b = resolveSharding({ groupName: 'workers' }, 'ns');
    expect(a.weight).toBe(1);
    expect(a.id).not.toBe(b.id);
    expect(a.namespace).toBe('ns');
    expect(a.timings).toEqual({
      peerLeaseDurationMs: 15_000,
      peerRenewIntervalMs: 2_000,
      fenceLeaseDurationMs: 15_000,
      fenceRenewDeadlineMs: 10_000,
      fenceRetryPeriodMs: 2_000,
      recomputeIntervalMs: 10_000,
    });
  });

  it('rejects unusable groups, weights and timings with a clear error', () => {
    const bad: [object, RegExp][] = [
      [{ groupName: 'Not_DNS' }, /groupName/],
      [{ groupName: 'x'.repeat(31) }, /groupName/],
      [{ groupName: 'g', weight: 0 }, /weight/],
      [{ groupName: 'g', id: '' }, /id/],
      [{ groupName: 'g', timings: { peerLeaseDurationMs: 500 } }, /at least 1000/],
      [{ groupName: 'g', timings: { peerRenewIntervalMs: 20_000 } }, /shorter than peerLeaseDurationMs/],
      [{ groupName: 'g', timings: { fenceRenewDeadlineMs: 20_000 } }, /fence/],
      [{ groupName: 'g', timings: { recomputeIntervalMs: -1 } }, /recomputeIntervalMs/],
    ];
    for (const [options, message] of bad) {
      expect(() => resolveSharding(options as never, 'ns')).toThrow(ShardingConfigError);
      expect(() => resolveSharding(options as never, 'ns')).toThrow(message);
    }
  });

  it('makes newManager fail on bad sharding options, and defaults the namespace outside a cluster', () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: false }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    expect(() => newManager(kc, undefined, { sharding: { groupName: 'g', namespace: 'ns', weight: -1 } })).toThrow(ManagerConfigError);
    expect(() => newManager(kc, undefined, { sharding: { groupName: 'g', namespace: 'ns', weight: -1 } })).toThrow(
      'sharding.weight must be a positive number, got -1',
    );
    expect(() => newManager(kc, undefined, { sharding: { groupName: 'Not A Label' } })).toThrow(ShardingConfigError);
    // Outside a cluster, with no namespace given, the Leases go to `default` (options.test.ts in manager/ runs one).
    expect(() => newManager(kc, undefined, { sharding: { groupName: 'g' } })).not.toThrow();
  });
});
