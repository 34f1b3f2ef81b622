/**
 * The walk-through's controller. For every MongoDBCommunity in a bound consumer workspace it keeps one projected
 * object on the downstream (local) cluster, named so that workspaces never collide; it copies `status.phase` and
 * `status.version` back from downstream; and a finalizer makes sure the downstream object is deleted before the
 * consumer's object goes. Downstream events map back to the consumer object through the origin annotations.
 */
import type { Cluster, Controller, Manager, ReconcileContext, Request, Result } from '@multicluster-runtime/core';
import { controllerManagedBy, enqueueRequestsFromMapFunc, isNotFound } from '@multicluster-runtime/core';
import { MONGODB, type MongoDBCommunity } from './api.js';
import { MANAGED_LABEL, ORIGIN_CLUSTER, ORIGIN_NAME, ORIGIN_NAMESPACE, downstreamName, originOf } from './downstream-name.js';

export const FINALIZER = 'kcp-mongodb.example.com/downstream';

export interface MongoSyncOptions {
  /** The downstream namespace every projected object goes to (it must exist). */
  downstreamNamespace: string;
}

export function setupMongoSync(mgr: Manager, options: MongoSyncOptions): Controller {
  const reconciler = new MongoSync(mgr, options);
  return controllerManagedBy(mgr)
    .named('mongodb-sync')
    .for(MONGODB)
    .watches(
      MONGODB,
      enqueueRequestsFromMapFunc<MongoDBCommunity>((obj) => {
        const origin = originOf(obj.metadata.annotations);
        return origin ? [{ clusterName: origin.cluster, namespace: origin.namespace, name: origin.name }] : [];
      }),
      { engageWithLocalCluster: true, engageWithProviderClusters: false },
    )
    .build((req, ctx) => reconciler.reconcile(req, ctx));
}

class MongoSync {
  constructor(
    private readonly mgr: Manager,
    private readonly options: MongoSyncOptions,
  ) {}

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    const consumer = await this.mgr.getCluster(req.clusterName, ctx.signal);
    const downstream = this.mgr.getLocalCluster();
    let obj: MongoDBCommunity;
    try {
      obj = await consumer.cache.get<MongoDBCommunity>(MONGODB, { namespace: req.namespace, name: req.name }, { signal: ctx.signal });
    } catch (err) {
      if (isNotFound(err)) return; // gone: the finalizer already cleaned up downstream
      throw err;
    }
    const origin = { cluster: req.clusterName, namespace: req.namespace, name: req.name };
    const target = { namespace: this.options.downstreamNamespace, name: downstreamName(origin) };
    const finalizers = obj.metadata.finalizers ?? [];

    if (obj.metadata.deletionTimestamp) {
      if (!finalizers.includes(FINALIZER)) return;
      try {
        await downstream.client.delete(MONGODB, target, { signal: ctx.signal });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      // Keep the consumer's object until the downstream one is really gone (the operator may hold finalizers).
      if (await exists(downstream, target, ctx.signal)) return { requeueAfter: 500 };
      await consumer.client.update(
        { ...obj, metadata: { ...obj.metadata, finalizers: finalizers.filter((f) => f !== FINALIZER) } },
        { signal: ctx.signal },
      );
      ctx.log.info('downstream object deleted; finalizer removed', { downstream: target.name });
      return;
    }

    if (!finalizers.includes(FINALIZER)) {
      obj = await consumer.client.update(
        { ...obj, metadata: { ...obj.metadata, finalizers: [...finalizers, FINALIZER] } },
        { signal: ctx.signal },
      );
    }

    const projected = await this.project(downstream, obj, origin, target, ctx.signal);
    const phase = projected.status?.phase;
    const version = projected.status?.version;
    if (phase === undefined && version === undefined) return;
    if (obj.status?.phase === phase && obj.status?.version === version) return;
    await consumer.client.updateStatus(
      { ...obj, status: { ...obj.status, ...(phase !== undefined ? { phase } : {}), ...(version !== undefined ? { version } : {}) } },
      { signal: ctx.signal },
    );
  }

  /** Creates or updates the downstream object so its spec is the consumer's; returns it as stored. */
  private async project(
    downstream: Cluster,
    obj: MongoDBCommunity,
    origin: { cluster: string; namespace: string; name: string },
    target: { namespace: string; name: string },
    signal: AbortSignal,
  ): Promise<MongoDBCommunity> {
    const metadata = {
      name: target.name,
      namespace: target.namespace,
      labels: { [MANAGED_LABEL]: 'true' },
      annotations: { [ORIGIN_CLUSTER]: origin.cluster, [ORIGIN_NAMESPACE]: origin.namespace, [ORIGIN_NAME]: origin.name },
    };
    let current: MongoDBCommunity;
    try {
      current = await downstream.client.get<MongoDBCommunity>(MONGODB, target, { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      return downstream.client.create<MongoDBCommunity>({ ...MONGODB, metadata, spec: obj.spec ?? {} }, { signal });
    }
    if (JSON.stringify(current.spec ?? {}) === JSON.stringify(obj.spec ?? {})) return current;
    return downstream.client.update<MongoDBCommunity>({ ...current, spec: obj.spec ?? {} }, { signal });
  }
}

async function exists(cluster: Cluster, key: { namespace: string; name: string }, signal: AbortSignal): Promise<boolean> {
  try {
    await cluster.client.get(MONGODB, key, { signal });
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}
