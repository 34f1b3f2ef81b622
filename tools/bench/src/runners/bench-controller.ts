/** The reconcile every multicluster-runtime runner measures: read the ConfigMap from its cluster's cache, record it. */
import { controllerManagedBy, isNotFound, type KubeObject } from '@multicluster-runtime/core';
import { type MultiClusterManager } from '@multicluster-runtime/core/manager';
import type { Recorder } from './recorder.js';

const configMap = { apiVersion: 'v1', kind: 'ConfigMap' };

export function addBenchController(mgr: MultiClusterManager, recorder: Recorder, maxConcurrentReconciles: number): void {
  controllerManagedBy(mgr)
    .named('bench')
    .for(configMap)
    .withOptions({ maxConcurrentReconciles })
    .complete(async (req) => {
      const cluster = await mgr.getCluster(req.clusterName);
      let obj: KubeObject | undefined;
      try {
        obj = await cluster.cache.get<KubeObject>(configMap, req);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      recorder.record(req.clusterName, obj);
    });
}
