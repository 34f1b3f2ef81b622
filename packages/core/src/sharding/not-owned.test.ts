/** A reconciler that meets a cluster this replica does not own has its request dropped, not retried. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { newController } from '../controller/controller.js';
import { ScriptedSource } from '../controller/scripted-source.test-util.js';
import { silentLogger } from '../log/logger.js';
import { noopMetrics, type MetricsRecorder, type ReconcileOutcome } from '../metrics/types.js';
import { ClusterNotFoundError, isClusterNotFound } from '../multicluster/errors.js';
import { ScriptedCluster } from '../providers/clusters/scripted-cluster.test-util.js';
import { ClusterNotOwnedError } from './errors.js';

const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
});

describe('ClusterNotOwnedError', () => {
  it('is a ClusterNotFoundError that names the owner, also through a cause chain', () => {
    const err = new ClusterNotOwnedError('prod-eu', 'replica-a', 'replica-b');
    expect(err).toBeInstanceOf(ClusterNotFoundError);
    expect(err.name).toBe('ClusterNotOwnedError');
    expect(err.clusterName).toBe('prod-eu');
    expect(err.message).toBe('cluster "prod-eu" is not owned by this replica ("replica-a"); replica "replica-b" owns it');
    expect(isClusterNotFound(new Error('lookup failed', { cause: err }))).toBe(true);
  });

  it('makes the controller drop the request (default onClusterNotFound) instead of retrying it', async () => {
    const outcomes: ReconcileOutcome[] = [];
    const metrics: MetricsRecorder = {
      ...noopMetrics,
      reconcileDone: (_c, _cl, outcome) => {
        outcomes.push(outcome);
      },
    };
    let calls = 0;
    const c = newController('not-owned', {
      logger: silentLogger,
      metrics,
      reconciler: async (req) => {
        calls++;
        throw new ClusterNotOwnedError(req.clusterName, 'me', 'someone-else');
      },
    });
    const src = new ScriptedSource();
    c.multiClusterWatch(src);
    const stop = new AbortController();
    stops.push(stop);
    const done = c.start(stop.signal);
    await c.engage(new AbortController().signal, 'a', new ScriptedCluster('a'));
    await vi.waitFor(() => expect(src.clusters()).toEqual(['a']));
    src.emit('a', { name: 'x', clusterName: 'elsewhere' });
    // 'cluster_not_found' is the controller's drop path (forget, no requeue); a retried error records 'error'.
    await vi.waitFor(() => expect(outcomes).toEqual(['cluster_not_found']));
    expect(calls).toBe(1);
    stop.abort();
    await done;
  });
});
