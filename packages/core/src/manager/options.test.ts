/**
 * newManager checks its options when given, as a caller from plain JavaScript (no types to guard them) would need:
 * unknown keys (with where they belong), wrong types and impossible values are refused with the option's path; a
 * sharded manager run outside a cluster puts its Leases in `default`.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer } from '@multicluster-runtime/envtest';
import { describe, expect, it, vi } from 'vitest';
import { newCluster } from '../cluster/cluster.js';
import { silentLogger } from '../log/logger.js';
import { ScriptedCluster } from '../providers/clusters/scripted-cluster.test-util.js';
import { ManagerConfigError } from './errors.js';
import { newManager } from './manager.js';
import type { ManagerOptions } from './options.js';

const local = () => new ScriptedCluster('local');
const refusal = (options: unknown): string => {
  try {
    newManager(new KubeConfig(), undefined, { localCluster: local(), ...(options as ManagerOptions) });
  } catch (err) {
    expect(err).toBeInstanceOf(ManagerConfigError);
    return (err as Error).message;
  }
  return expect.unreachable('the options were accepted');
};

describe('newManager options', () => {
  it('refuses an option put at the wrong level, naming where it belongs', () => {
    expect(refusal({ sharding: { groupName: 'g', fenceRetryPeriodMs: 200 } })).toBe(
      'unknown option sharding.fenceRetryPeriodMs (did you mean sharding.timings.fenceRetryPeriodMs?)',
    );
    expect(refusal({ leaderElection: { name: 'x', leaseDuration: 15_000 } })).toMatch(
      /unknown option leaderElection.leaseDuration \(did you mean leaderElection.leaseDurationMs\?\)/,
    );
    expect(refusal({ gracefulShutdownTimeout: 5 })).toMatch(
      /unknown option gracefulShutdownTimeout \(did you mean gracefulShutdownTimeoutMs\?\)/,
    );
  });

  it('refuses values of the wrong type or range, all at once', () => {
    expect(refusal({ gracefulShutdownTimeoutMs: '10s', sharding: { groupName: 'g', timings: { peerLeaseDurationMs: -1 } } })).toBe(
      '2 problems: gracefulShutdownTimeoutMs must be a non-negative number of milliseconds, got "10s"; ' +
        'sharding.timings.peerLeaseDurationMs must be a positive number of milliseconds, got -1',
    );
    expect(refusal({ logger: console })).toMatch(/logger must be a Logger/);
    expect(refusal({ client: { cache: { disableFor: [{ kind: 'Secret' }] } } })).toMatch(
      /client.cache.disableFor\[0\] must be a kind such as \{ apiVersion: "v1", kind: "Secret" \}, got an object/,
    );
    expect(() =>
      newManager(new KubeConfig(), undefined, {
        localCluster: local(),
        sharding: { groupName: 'g', timings: { fenceRenewDeadlineMs: 20_000 } },
      }),
    ).toThrow(/sharding.timings \(fence\): leaseDurationMs must be greater than renewDeadlineMs/);
  });

  it('runs a sharded manager outside a cluster with its Leases in the default namespace', async () => {
    const host = await startApiServer();
    const kc = new KubeConfig();
    kc.loadFromString(host.kubeconfig());
    const mgr = newManager(kc, undefined, { logger: silentLogger, sharding: { groupName: 'readme' } });
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    const check = newCluster(kc, { logger: silentLogger });
    try {
      await vi.waitFor(async () => {
        const leases = await check.apiReader.list<{ metadata: { name?: string } }>(
          { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' },
          { namespace: 'default' },
        );
        expect(leases.items.map((l) => l.metadata.name).some((n) => n?.includes('readme'))).toBe(true);
      });
    } finally {
      stop.abort();
      await done;
      await check.close();
      await host.close();
    }
  });
});
