/**
 * The walk-through's controller. For every MongoDBCommunity in a bound consumer workspace it keeps one projected
 * object on the downstream (local) cluster, named so that workspaces never collide and stamped with its origin; it
 * copies `status.phase` and `status.version` back from downstream; and a finalizer makes sure the downstream object
 * is deleted before the consumer's object goes. Downstream events map back to the consumer object through the
 * origin stamp. What it does is recorded as Events: in the consumer's workspace (the export claims events) and on
 * the downstream cluster.
 */
import type { Cluster, Controller, EventRecorder, Manager, ReconcileContext, Request, Result } from '@multicluster-runtime/core';
import {
  Finalizers,
  controllerManagedBy,
  createOrPatch,
  createOrUpdate,
  enqueueRequestForOrigin,
  ignoreNotFound,
  nameForOrigin,
  setOrigin,
} from '@multicluster-runtime/core';
import { MONGODB, type MongoDBCommunity } from './api.js';

export const FINALIZER = 'kcp-mongodb.example.com/downstream';
/** The origin stamp's key prefix on downstream objects (`kcp-mongodb.example.com/origin-cluster`, ...). */
export const ORIGIN_PREFIX = 'kcp-mongodb.example.com/';
const CONTROLLER_NAME = 'mongodb-sync';

export interface MongoSyncOptions {
  /** The downstream namespace every projected object goes to (it must exist). */
  downstreamNamespace: string;
}

export function setupMongoSync(mgr: Manager, options: MongoSyncOptions): Controller {
  const reconciler = new MongoSync(mgr, options);
  return controllerManagedBy(mgr)
    .named(CONTROLLER_NAME)
    .for(MONGODB)
    .watches(MONGODB, enqueueRequestForOrigin<MongoDBCommunity>({ prefix: ORIGIN_PREFIX }), {
      engageWithLocalCluster: true,
      engageWithProviderClusters: false,
    })
    .build((req, ctx) => reconciler.reconcile(req, ctx));
}

/** Where the object made for `origin` lives downstream. */
export function downstreamKey(origin: Request, options: MongoSyncOptions): { namespace: string; name: string } {
  return { namespace: options.downstreamNamespace, name: nameForOrigin(origin) };
}

class MongoSync {
  private readonly downstreamEvents: EventRecorder;

  constructor(
    private readonly mgr: Manager,
    private readonly options: MongoSyncOptions,
  ) {
    this.downstreamEvents = mgr.getEventRecorderFor(CONTROLLER_NAME);
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    const consumer = await this.mgr.getCluster(req.clusterName, ctx.signal);
    const obj = await consumer.client.get<MongoDBCommunity>(MONGODB, req, { signal: ctx.signal }).catch(ignoreNotFound);
    if (!obj) return; // gone: the finalizer already cleaned up downstream
    const events = consumer.getEventRecorderFor(CONTROLLER_NAME);
    const target = downstreamKey(req, this.options);

    const finalizers = new Finalizers<MongoDBCommunity>().register(FINALIZER, async () => {
      if (await this.deleteDownstream(target, ctx.signal)) {
        events.event(obj, 'Normal', 'DownstreamDeleted', `deleted ${target.namespace}/${target.name} downstream`);
        return;
      }
      return { requeueAfter: 500 }; // the operator may hold finalizers: keep ours until the object is really gone
    });
    const { requeueAfter } = await finalizers.finalize(consumer.client, obj, { signal: ctx.signal });
    if (obj.metadata?.deletionTimestamp) return requeueAfter !== undefined ? { requeueAfter } : undefined;

    const { phase, version } = (await this.project(obj, req, target, events, ctx.signal)).status ?? {};
    if (phase === undefined && version === undefined) return; // the operator has not reported yet
    await createOrPatch(consumer.client, obj, (o) => void (o.status = { ...o.status, phase, version }), { signal: ctx.signal });
  }

  /** Creates or updates the downstream object so its spec is the consumer's; returns it as stored. */
  private async project(
    obj: MongoDBCommunity,
    origin: Request,
    target: { namespace: string; name: string },
    events: EventRecorder,
    signal: AbortSignal,
  ): Promise<MongoDBCommunity> {
    const projected: MongoDBCommunity = { ...MONGODB, metadata: { ...target } };
    const result = await createOrUpdate(
      this.mgr.getLocalCluster().client,
      projected,
      (o) => {
        setOrigin(o, origin, { prefix: ORIGIN_PREFIX });
        o.spec = obj.spec ?? {};
      },
      { signal },
    );
    if (result !== 'unchanged') {
      const verb = result === 'created' ? 'created' : 'updated';
      events.event(obj, 'Normal', 'Projected', `${verb} ${target.namespace}/${target.name} downstream`, { related: projected });
      this.downstreamEvents.event(projected, 'Normal', 'Projected', `${verb} for ${origin.clusterName}:${origin.namespace}/${origin.name}`);
    }
    return projected;
  }

  /** Deletes the downstream object; true once it is gone. */
  private async deleteDownstream(target: { namespace: string; name: string }, signal: AbortSignal): Promise<boolean> {
    const downstream: Cluster = this.mgr.getLocalCluster();
    await downstream.client.delete(MONGODB, target, { signal }).catch(ignoreNotFound);
    const left = await downstream.client.get(MONGODB, target, { signal }).catch(ignoreNotFound);
    return left === undefined;
  }
}
