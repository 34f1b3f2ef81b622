/**
 * Path mounts: extra URL prefixes (kcp virtual workspaces, Milo project control planes) that map onto the logical
 * cluster machinery, each showing a subset of the clusters and resources, some of them read-only.
 */
import { ResourceRegistry } from '../api/resource-registry.js';
import type { ResourceType } from '../api/resource-type.js';
import type { CollectionTarget } from './object-target.js';
import type { MountedPath, PathMount } from './options.js';

/** The first mount that claims `path`, in registration order. */
export function resolveMount(mounts: readonly PathMount[], path: string): MountedPath | undefined {
  for (const m of mounts) {
    const mounted = m.resolve(path);
    if (mounted) return mounted;
  }
  return undefined;
}

/** Whether a mount shows this logical cluster (for this resource, when given). */
export function mountShowsCluster(view: MountedPath, cluster: string, type?: ResourceType): boolean {
  return view.clusters === undefined || view.clusters(cluster, type && { group: type.group, resource: type.resource });
}

/**
 * A collection seen through a mount: only the clusters it shows for that resource and the objects its label selector
 * picks, ending with the mount's life.
 */
export function mountedCollection(view: MountedPath, collection: CollectionTarget): CollectionTarget {
  const { clusters, signal } = view;
  const gr = { group: collection.type.group, resource: collection.type.resource };
  const labelSelector = view.labelSelector?.(gr.group, gr.resource);
  return {
    ...collection,
    ...(clusters ? { clusters: (name: string) => clusters(name, gr) } : {}),
    ...(signal ? { signal } : {}),
    ...(labelSelector ? { labelSelector } : {}),
  };
}

/** Whether a mount serves writes to this resource. */
export function mountAllowsWrites(view: MountedPath, type: ResourceType): boolean {
  return !view.readOnlyResources?.(type.group, type.resource);
}

/**
 * The resources as seen through a mount: only its resources, and for the wildcard only those served in the clusters
 * it shows. Routing and discovery read it like the real registry; everything goes through `all()`.
 */
export class MountedRegistry extends ResourceRegistry {
  constructor(
    private readonly base: ResourceRegistry,
    private readonly view: MountedPath,
    private readonly knownClusters: () => Iterable<string>,
  ) {
    super();
  }

  override all(cluster: string | undefined): ResourceType[] {
    let types: ResourceType[];
    if (cluster !== undefined || this.view.clusters === undefined) types = this.base.all(cluster);
    else {
      const seen = new Set<ResourceType>();
      for (const c of this.knownClusters()) if (this.view.clusters(c)) for (const t of this.base.all(c)) seen.add(t);
      // Built-ins are served everywhere, even when no cluster is visible yet.
      types = seen.size > 0 ? [...seen] : this.base.all('');
    }
    const resources = this.view.resources;
    return resources ? types.filter((t) => resources(t.group, t.resource)) : types;
  }

  /**
   * What all() would find, without building it: the base registry's lookup, within the view's resources and, for the
   * wildcard, in the first visible cluster that serves it (the built-ins alone when no cluster is visible yet).
   */
  override find(cluster: string | undefined, group: string, version: string, resource: string): ResourceType | undefined {
    if (this.view.resources && !this.view.resources(group, resource)) return undefined;
    const { clusters } = this.view;
    if (cluster !== undefined || clusters === undefined) return this.base.find(cluster, group, version, resource);
    let visible = false;
    for (const c of this.knownClusters()) {
      if (!clusters(c)) continue;
      visible = true;
      const type = this.base.find(c, group, version, resource);
      if (type) return type;
    }
    return visible ? undefined : this.base.find('', group, version, resource);
  }
}
