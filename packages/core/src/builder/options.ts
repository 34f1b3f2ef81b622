/**
 * Per-watch options of the builder and how several of them combine. A watch may be given several option objects
 * (`for(kind, a, b)`); they merge field by field, later fields winning and predicates adding up, so setting one
 * engage option never resets another.
 */
import type { KubeObject, KubeObjectLike } from '../object/types.js';
import type { Predicate } from '../predicate/types.js';
import type { ClusterFilter } from '../source/kind.js';

/** Which clusters a watch runs on. */
export interface EngageOptions {
  /** Watch the manager's local cluster (name ""). Default: true when the manager has no provider. */
  engageWithLocalCluster?: boolean;
  /** Watch every cluster the provider engages. Default: true when the manager has a provider. */
  engageWithProviderClusters?: boolean;
  /** Only provider clusters for which this returns true (the local cluster ignores it, as upstream). */
  clusterFilter?: ClusterFilter;
}

export interface WatchOptions<T extends KubeObjectLike = KubeObject> extends EngageOptions {
  /** ANDed with each other and with `withEventFilter` predicates; apply to this watch only. */
  predicates?: Predicate<T>[];
  /** Watch metadata only (PartialObjectMetadata). */
  metadataOnly?: boolean;
}

export interface OwnsOptions<T extends KubeObjectLike = KubeObject> extends WatchOptions<T> {
  /** Reconcile only the owner that is the controller (`controller: true`). Default true; false = every owner. */
  onlyController?: boolean;
}

/** Merges option objects field by field; predicates concatenate. */
export function mergeWatchOptions<O extends WatchOptions<KubeObject>>(options: readonly (O | undefined)[]): O {
  const merged = {} as O;
  const predicates: Predicate<KubeObject>[] = [];
  for (const o of options) {
    if (!o) continue;
    for (const [key, value] of Object.entries(o)) {
      if (key === 'predicates') predicates.push(...(value as Predicate<KubeObject>[]));
      else if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
    }
  }
  merged.predicates = predicates;
  return merged;
}

/** Where a watch runs once defaults are applied. */
export function resolveEngagement(options: EngageOptions, hasProvider: boolean): { local: boolean; providerClusters: boolean } {
  return {
    local: options.engageWithLocalCluster ?? !hasProvider,
    providerClusters: options.engageWithProviderClusters ?? hasProvider,
  };
}
