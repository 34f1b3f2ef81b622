/**
 * A stand-in for the MongoDB Community Operator on the downstream cluster: it reports every MongoDBCommunity as
 * `Running` at its `spec.version`, which is all the walk-through needs to show status flowing back.
 */
import type { Controller, Manager } from '@multicluster-runtime/core';
import { controllerManagedBy, createOrPatch, ignoreNotFound } from '@multicluster-runtime/core';
import { MONGODB, type MongoDBCommunity } from './api.js';

export function setupStandInOperator(mgr: Manager): Controller {
  return controllerManagedBy(mgr)
    .named('mongodb-operator')
    .for(MONGODB)
    .build(async (req, ctx) => {
      const { client } = mgr.getLocalCluster();
      const obj = await client.get<MongoDBCommunity>(MONGODB, req, { signal: ctx.signal }).catch(ignoreNotFound);
      if (!obj || obj.metadata?.deletionTimestamp) return;
      await createOrPatch(client, obj, (o) => void (o.status = { phase: 'Running', version: o.spec?.version ?? '' }), {
        signal: ctx.signal,
      });
    });
}
