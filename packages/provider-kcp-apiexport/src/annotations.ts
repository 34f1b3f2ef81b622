/**
 * How kcp says where an object lives: the `kcp.io/cluster` annotation (the logical cluster name) on every object a
 * wildcard view returns, and `kcp.io/path` (the workspace path) on APIBindings. Also the store key and the index name
 * the shared wildcard caches use, both built from the annotation.
 */
import type { KubeObject } from '@multicluster-runtime/core';

/**
 * kcp's annotation naming the logical cluster an object lives in.
 */
export const CLUSTER_ANNOTATION = 'kcp.io/cluster';
/**
 * kcp's annotation carrying a workspace's path (`root:org:ws`).
 */
export const PATH_ANNOTATION = 'kcp.io/path';

/** The field the wildcard caches index every kind by, so one cluster's reads never scan the others. */
export const CLUSTER_FIELD = 'kcp.io/cluster';

/**
 * The logical cluster an object from a wildcard view belongs to ('' when it carries no annotation).
 */
export function logicalClusterOf(obj: KubeObject): string {
  return obj.metadata.annotations?.[CLUSTER_ANNOTATION] ?? '';
}

/** `cluster|namespace/name`: the same namespace and name exist in many logical clusters of one wildcard view. */
export function clusterObjectKey(obj: KubeObject): string {
  const ns = obj.metadata.namespace;
  return `${logicalClusterOf(obj)}|${ns ? `${ns}/` : ''}${obj.metadata.name ?? ''}`;
}
