/** The object a request addresses, and how stored objects are shown to clients of a given version. */
import type { ResourceType } from '../api/resource-type.js';
import { groupVersion, storageResource } from '../api/resource-type.js';
import type { ObjectKey, StoredObject } from '../storage/types.js';
import { KCP_CLUSTER_ANNOTATION } from '../cluster-path.js';
import { builtinDefinition } from '../api/builtin-decode.js';
import { withGoNulls } from '../api/go-nulls.js';

/** A resource collection in one logical cluster (or every one, `cluster: undefined`) and maybe one namespace. */
export interface CollectionTarget {
  readonly type: ResourceType;
  readonly version: string;
  readonly cluster: string | undefined;
  /** Undefined for cluster-scoped resources and the all-namespaces collection. */
  readonly namespace: string | undefined;
  /** For the wildcard under a mount: which logical clusters it shows (default all). */
  readonly clusters?: ((name: string) => boolean) | undefined;
  /** For a mount: aborts when what serves it goes down; open watches are then cut. */
  readonly signal?: AbortSignal | undefined;
  /** For a mount: a label selector ANDed with the request's on lists and watches. */
  readonly labelSelector?: string | undefined;
}

export interface ObjectTarget extends CollectionTarget {
  readonly cluster: string;
  readonly name: string;
  readonly subresource: string | undefined;
}

export function objectKey(t: { type: ResourceType; cluster: string; namespace: string | undefined; name: string }): ObjectKey {
  return { cluster: t.cluster, resource: storageResource(t.type), namespace: t.namespace ?? '', name: t.name };
}

/**
 * The object as the requested version shows it: apiVersion and kind first, always set. With `logicalCluster` (kcp
 * mode) it carries the `kcp.io/cluster` annotation clients use to tell clusters apart in wildcard views.
 */
export function present(obj: StoredObject, type: ResourceType, version: string, logicalCluster?: string): Record<string, unknown> {
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = obj;
  if (logicalCluster) {
    const annotations = {
      ...((obj.metadata['annotations'] as Record<string, string> | undefined) ?? {}),
      [KCP_CLUSTER_ANNOTATION]: logicalCluster,
    };
    rest.metadata = { ...obj.metadata, annotations };
  }
  const gv = groupVersion(type.group, version);
  const presented = { apiVersion: gv, kind: type.kind, ...rest };
  return type.custom ? presented : withGoNulls(presented, builtinDefinition(gv, type.kind));
}
