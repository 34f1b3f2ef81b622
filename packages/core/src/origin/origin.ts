/**
 * The origin stamp: owner references cannot cross clusters, so an object a controller writes into another cluster
 * records where it came from instead — the cluster, namespace and name of the object it was made for — as
 * annotations (exact values), plus one label holding a hash of the three (any cluster name fits, and a label selector
 * finds everything made for one origin). `enqueueRequestForOrigin` maps events of stamped objects back to a request
 * in the origin cluster; `nameForOrigin` gives a collision-free name when objects from many clusters land in one
 * namespace.
 *
 * Keys (prefix `multicluster-runtime.io/` unless `prefix` is given):
 *   annotations `<prefix>origin-cluster`, `<prefix>origin-namespace`, `<prefix>origin-name`; label `<prefix>origin`.
 *
 * Stamps are read from objects in a member cluster, which are untrusted: a forged stamp can only enqueue a request,
 * and a reconcile reads the named object's real state, so it cannot make a controller act on data it did not read.
 */
import { createHash } from 'node:crypto';
import type { EnqueueFromMapFuncOptions } from '../handler/enqueue-from-map-func.js';
import { enqueueRequestsFromMapFunc } from '../handler/enqueue-from-map-func.js';
import type { EventHandler } from '../handler/types.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { KubeObject, KubeObjectLike } from '../object/types.js';
import type { Request } from '../reconcile/types.js';

export const DEFAULT_ORIGIN_PREFIX = 'multicluster-runtime.io/';

/** Where an object came from: the request of the object it was made for. */
export interface Origin {
  readonly clusterName: ClusterName;
  readonly namespace: string;
  readonly name: string;
}

/**
 * Options of the origin stamp (annotations and a label saying which cluster, namespace and name an object was derived
 * from): the key prefix.
 */
export interface OriginOptions {
  /** Key prefix (a DNS subdomain and '/'), so two controllers stamping one object do not collide. Default `multicluster-runtime.io/`. */
  prefix?: string;
}

/** The annotation and label keys for `prefix`. */
export function originKeys(options: OriginOptions = {}): { cluster: string; namespace: string; name: string; label: string } {
  const prefix = options.prefix ?? DEFAULT_ORIGIN_PREFIX;
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/$/.test(prefix)) {
    throw new TypeError(`origin prefix must be a DNS subdomain followed by "/", got ${JSON.stringify(prefix)}`);
  }
  return {
    cluster: `${prefix}origin-cluster`,
    namespace: `${prefix}origin-namespace`,
    name: `${prefix}origin-name`,
    label: `${prefix}origin`,
  };
}

/** Stamps `origin` (a reconcile Request fits) on `obj`: three annotations and the hash label. */
export function setOrigin(obj: KubeObjectLike, origin: Origin, options: OriginOptions = {}): void {
  checkOrigin(origin);
  const keys = originKeys(options);
  const metadata = (obj.metadata ??= {});
  metadata.annotations = {
    ...metadata.annotations,
    [keys.cluster]: origin.clusterName,
    [keys.namespace]: origin.namespace,
    [keys.name]: origin.name,
  };
  metadata.labels = { ...metadata.labels, [keys.label]: originHash(origin) };
}

/** The origin stamped on `obj`, or undefined if it has none (or a malformed one). */
export function originOf(obj: KubeObjectLike, options: OriginOptions = {}): Request | undefined {
  const keys = originKeys(options);
  const annotations = obj?.metadata?.annotations;
  const clusterName = annotations?.[keys.cluster];
  const namespace = annotations?.[keys.namespace];
  const name = annotations?.[keys.name];
  if (typeof clusterName !== 'string' || typeof namespace !== 'string' || typeof name !== 'string' || name === '') return undefined;
  return { clusterName, namespace, name };
}

/** A label selector matching every object stamped with `origin`: `list(kind, { labelSelector: originSelector(req) })`. */
export function originSelector(origin: Origin, options: OriginOptions = {}): Record<string, string> {
  checkOrigin(origin);
  return { [originKeys(options).label]: originHash(origin) };
}

/**
 * A handler for objects written elsewhere: each event enqueues the request of the object's origin, in the origin's
 * cluster. Objects without a stamp enqueue nothing.
 */
export function enqueueRequestForOrigin<T extends KubeObjectLike = KubeObject>(
  options: OriginOptions & EnqueueFromMapFuncOptions = {},
): EventHandler<T> {
  const { prefix, ...mapOptions } = options;
  originKeys({ prefix });
  return enqueueRequestsFromMapFunc<T>((obj) => {
    const origin = originOf(obj, { prefix });
    return origin ? [origin] : [];
  }, mapOptions);
}

/**
 * A name for the object made for `origin` that no other origin gets: the origin's name (cut to fit) and a hash of
 * cluster, namespace and name, as a DNS label (≤ 63 characters). Objects from many clusters' `default` namespaces
 * can then share one namespace.
 */
export function nameForOrigin(origin: Origin): string {
  checkOrigin(origin);
  const base = origin.name
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 52)
    .replace(/^-+|-+$/g, '');
  const hash = originHash(origin).slice(0, 10);
  return base ? `${base}-${hash}` : hash;
}

function originHash(origin: Origin): string {
  return createHash('sha256').update(`${origin.clusterName}\n${origin.namespace}\n${origin.name}`).digest('hex').slice(0, 40);
}

function checkOrigin(origin: Origin): void {
  if (!origin || typeof origin.clusterName !== 'string' || typeof origin.namespace !== 'string' || typeof origin.name !== 'string') {
    throw new TypeError('an origin needs clusterName, namespace and name strings (a reconcile Request has them)');
  }
  if (origin.name === '') throw new TypeError('an origin needs a name');
}
