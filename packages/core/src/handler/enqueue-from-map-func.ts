/**
 * A handler that asks a function which objects to reconcile for an event's object. The function may name objects in
 * other clusters (cross-cluster enqueue: watch in cluster A, reconcile in cluster B) or leave the cluster out to
 * mean the event's own.
 */
import type { Cluster } from '../cluster/types.js';
import type { Logger } from '../log/logger.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { KubeObject, KubeObjectLike } from '../object/types.js';
import type { Request } from '../reconcile/types.js';
import { addUnique, defaultHandlerLogger, objectFields } from './object-request.js';
import type { EventHandler, RequestQueue } from './types.js';

/** What to reconcile. An omitted `clusterName` means the event's cluster; an omitted `namespace` means "". */
export interface MapTarget {
  clusterName?: ClusterName;
  namespace?: string;
  name: string;
}

/** Where the event came from. */
export interface MapContext {
  readonly clusterName: ClusterName;
  readonly cluster: Cluster;
}

/** Must not block; return the targets (or none). */
export type MapFunc<T extends KubeObjectLike = KubeObject> = (obj: T, ctx: MapContext) => readonly MapTarget[] | null | undefined;

/** Options of enqueueRequestsFromMapFunc: the logger (a map function that throws is logged, not fatal). */
export interface EnqueueFromMapFuncOptions {
  /** Where a throwing map function or a malformed target is reported. Default: JSON lines on stderr. */
  logger?: Logger;
}

/**
 * Enqueues the targets `fn` returns for the event's object; on updates, for the old and the new object, each target
 * once. A map function that throws or returns something malformed is logged; the event enqueues what was valid.
 *
 * @example
 * // A ConfigMap in any cluster enqueues the Deployment of the same name in the "hub" cluster.
 * enqueueRequestsFromMapFunc((cm) => [{ clusterName: 'hub', namespace: cm.metadata.namespace, name: cm.metadata.name! }])
 */
export function enqueueRequestsFromMapFunc<T extends KubeObjectLike = KubeObject>(
  fn: MapFunc<T>,
  options: EnqueueFromMapFuncOptions = {},
): EventHandler<T> {
  const log = (): Logger => options.logger ?? defaultHandlerLogger();

  const map = (type: string, obj: T | undefined, ctx: MapContext): Request[] => {
    if (!obj) return [];
    let targets: unknown;
    try {
      targets = fn(obj, ctx);
    } catch (err) {
      log().error(`map function threw on ${type} event; nothing enqueued for this object`, err, objectFields(ctx.clusterName, obj));
      return [];
    }
    if (targets === undefined || targets === null) return [];
    if (!Array.isArray(targets)) {
      log().error(
        `map function returned ${typeof targets} instead of an array on ${type} event`,
        undefined,
        objectFields(ctx.clusterName, obj),
      );
      return [];
    }
    const out: Request[] = [];
    for (const t of targets as unknown[]) {
      const req = toRequest(t, ctx.clusterName);
      if (req) out.push(req);
      else
        log().error(`map function returned a malformed target on ${type} event; skipped`, undefined, {
          ...objectFields(ctx.clusterName, obj),
          target: describeTarget(t),
        });
    }
    return out;
  };

  const enqueue = (type: string, ctx: MapContext, objects: (T | undefined)[], queue: RequestQueue): void => {
    addUnique(
      objects.flatMap((o) => map(type, o, ctx)),
      (req) => queue.add(req),
    );
  };

  return {
    create: (e, q) => enqueue('create', e, [e.object], q),
    update: (e, q) => enqueue('update', e, [e.objectOld, e.objectNew], q),
    delete: (e, q) => enqueue('delete', e, [e.object], q),
    generic: (e, q) => enqueue('generic', e, [e.object], q),
  };
}

function toRequest(t: unknown, eventCluster: ClusterName): Request | undefined {
  if (t === null || typeof t !== 'object') return undefined;
  const { clusterName, namespace, name } = t as Record<string, unknown>;
  if (typeof name !== 'string' || name === '') return undefined;
  if (namespace !== undefined && typeof namespace !== 'string') return undefined;
  if (clusterName !== undefined && typeof clusterName !== 'string') return undefined;
  return { clusterName: clusterName ?? eventCluster, namespace: namespace ?? '', name };
}

function describeTarget(t: unknown): string {
  try {
    return JSON.stringify(t)?.slice(0, 200) ?? String(t);
  } catch {
    return String(t);
  }
}
