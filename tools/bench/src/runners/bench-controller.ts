/** The reconcile every multicluster-runtime runner measures: read the ConfigMap from its cluster's cache, record it. */
import { controllerManagedBy, isNotFound, type KubeObject } from '@multicluster-runtime/core';
import { type MultiClusterManager } from '@multicluster-runtime/core/manager';
import { latencySplit } from '../latency-trace.js';
import { SENT_AT_ANNOTATION } from '../protocol.js';
import type { Recorder } from './recorder.js';

const configMap = { apiVersion: 'v1', kind: 'ConfigMap' };

export function addBenchController(mgr: MultiClusterManager, recorder: Recorder, maxConcurrentReconciles: number): void {
  const builder = controllerManagedBy(mgr).named('bench').for(configMap).withOptions({ maxConcurrentReconciles });
  const split = latencySplit;
  if (split) {
    // MCR_BENCH_LATENCY_TRACE only: when each update reached the controller, so latency splits at its door.
    builder.withEventFilter<KubeObject>({
      update: ({ objectNew }) => {
        const stamp = objectNew.metadata.annotations?.[SENT_AT_ANNOTATION];
        if (stamp !== undefined) split.reachedController(stamp);
        return true;
      },
    });
  }
  builder.complete(async (req) => {
    const cluster = await mgr.getCluster(req.clusterName);
    let obj: KubeObject | undefined;
    try {
      obj = await cluster.cache.get<KubeObject>(configMap, req);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    recorder.record(req.clusterName, obj);
    const stamp = obj?.metadata.annotations?.[SENT_AT_ANNOTATION];
    if (split && stamp !== undefined) split.reconciled(stamp);
  });
}
