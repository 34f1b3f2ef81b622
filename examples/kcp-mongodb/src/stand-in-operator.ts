/**
 * A stand-in for the MongoDB Community Operator on the downstream cluster: it reports every MongoDBCommunity as
 * `Running` at its `spec.version`, which is all the walk-through needs to show status flowing back.
 */
import type { Controller, Manager } from '@multicluster-runtime/core';
import { controllerManagedBy, isNotFound } from '@multicluster-runtime/core';
import { MONGODB, type MongoDBCommunity } from './api.js';

export function setupStandInOperator(mgr: Manager): Controller {
  return controllerManagedBy(mgr)
    .named('mongodb-operator')
    .for(MONGODB)
    .build(async (req, ctx) => {
      const cluster = mgr.getLocalCluster();
      let obj: MongoDBCommunity;
      try {
        obj = await cluster.client.get<MongoDBCommunity>(MONGODB, { namespace: req.namespace, name: req.name }, { signal: ctx.signal });
      } catch (err) {
        if (isNotFound(err)) return;
        throw err;
      }
      if (obj.metadata.deletionTimestamp) return;
      const version = obj.spec?.version ?? '';
      if (obj.status?.phase === 'Running' && obj.status.version === version) return;
      await cluster.client.updateStatus({ ...obj, status: { phase: 'Running', version } }, { signal: ctx.signal });
    });
}
