/**
 * The handler behind `owns(kind)`: an event for an owned object enqueues its owner of the given kind, found through
 * `metadata.ownerReferences` (matched by API group and kind, any version, as controller-runtime does).
 */
import type { Cluster } from '../cluster/types.js';
import type { Logger } from '../log/logger.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import { parseApiVersion } from '../object/gvk.js';
import type { KubeObject, KubeObjectLike, ObjectKind } from '../object/types.js';
import type { Request } from '../reconcile/types.js';
import { addUnique, defaultHandlerLogger } from './object-request.js';
import { OwnerScope } from './owner-scope.js';
import type { EventHandler, RequestQueue } from './types.js';

/** Options of enqueueRequestForOwner: only the controlling owner or every owner of the kind, whether owners are namespaced, and the logger. */
export interface EnqueueForOwnerOptions {
  /** Only follow the reference marked `controller: true`. Default true. */
  onlyController?: boolean;
  /**
   * Whether the owner kind is namespaced. Set it to skip the per-cluster discovery lookup; when omitted, namespaced
   * owned objects look it up once per cluster (cluster-scoped owned objects cannot have namespaced owners).
   */
  ownerNamespaced?: boolean;
  /** Where failed lookups are reported. Default: JSON lines on stderr. */
  logger?: Logger;
}

interface OwnerRef {
  name: string;
  /** The owned object's namespace, or "" if it is cluster-scoped. */
  namespace: string;
}

/**
 * Enqueues, in the event's cluster, the owners of kind `ownerKind` of the event's object (both the old and the new
 * object's owners on updates, so removing an owner reference still reconciles the former owner).
 */
export function enqueueRequestForOwner<T extends KubeObjectLike = KubeObject>(
  ownerKind: ObjectKind,
  options: EnqueueForOwnerOptions = {},
): EventHandler<T> {
  const onlyController = options.onlyController ?? true;
  const ownerGroup = parseApiVersion(ownerKind.apiVersion).group;
  const log = (): Logger => options.logger ?? defaultHandlerLogger();
  const scope = new OwnerScope(ownerKind, log);

  const ownersOf = (obj: T | undefined): OwnerRef[] => {
    const refs = obj?.metadata?.ownerReferences;
    if (!Array.isArray(refs)) return [];
    const ns = obj?.metadata?.namespace;
    const namespace = typeof ns === 'string' ? ns : '';
    const out: OwnerRef[] = [];
    for (const ref of refs) {
      if (!ref || typeof ref.apiVersion !== 'string' || typeof ref.name !== 'string' || ref.name === '') continue;
      if (ref.kind !== ownerKind.kind || parseApiVersion(ref.apiVersion).group !== ownerGroup) continue;
      if (onlyController && ref.controller !== true) continue;
      out.push({ name: ref.name, namespace });
    }
    return out;
  };

  const toRequests = (clusterName: ClusterName, owners: OwnerRef[], namespaced: boolean): Request[] =>
    owners.map((o) => ({ clusterName, namespace: namespaced ? o.namespace : '', name: o.name }));

  const enqueue = (clusterName: ClusterName, cluster: Cluster, objects: (T | undefined)[], queue: RequestQueue): void => {
    const owners = objects.flatMap(ownersOf);
    if (owners.length === 0) return;
    const add = (req: Request): void => queue.add(req);
    const ownedNamespaced = owners.some((o) => o.namespace !== '');
    if (options.ownerNamespaced !== undefined || !ownedNamespaced) {
      addUnique(toRequests(clusterName, owners, options.ownerNamespaced ?? false), add);
      return;
    }
    scope.withScope(cluster, (namespaced) => addUnique(toRequests(clusterName, owners, namespaced), add));
  };

  return {
    create: (e, q) => enqueue(e.clusterName, e.cluster, [e.object], q),
    update: (e, q) => enqueue(e.clusterName, e.cluster, [e.objectOld, e.objectNew], q),
    delete: (e, q) => enqueue(e.clusterName, e.cluster, [e.object], q),
    generic: (e, q) => enqueue(e.clusterName, e.cluster, [e.object], q),
  };
}
