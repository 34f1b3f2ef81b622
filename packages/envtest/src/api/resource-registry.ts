/**
 * Which resources a server serves, per logical cluster: the built-ins everywhere, plus the custom resources of the
 * Established CRDs in that cluster (CRDs are per logical cluster, as in kcp).
 */
import { GENERIC_BUILTIN_RESOURCES } from './builtin-generic.js';
import { BUILTIN_RESOURCES } from './builtin-resources.js';
import type { ResourceType } from './resource-type.js';
import { storageResource } from './resource-type.js';
import { sortKubeVersions } from './version-priority.js';

export interface ApiGroupInfo {
  name: string;
  /** Sorted by priority; the first is preferred. */
  versions: string[];
}

/** Every built-in: the ones with rules of their own first, then the rest of the version's discovery, served generically. */
const BUILTINS: readonly ResourceType[] = [...BUILTIN_RESOURCES, ...GENERIC_BUILTIN_RESOURCES];

/** The built-ins by storage resource (`resource.group`), the first of a name winning: what every request looks up. */
const BUILTIN_BY_NAME: ReadonlyMap<string, ResourceType> = new Map([...BUILTINS].reverse().map((t) => [storageResource(t), t] as const));

export class ResourceRegistry {
  private readonly custom = new Map<string, Map<string, ResourceType>>();

  /** Serves (or re-serves with new settings) a custom resource in one logical cluster. */
  set(cluster: string, type: ResourceType): void {
    let byName = this.custom.get(cluster);
    if (!byName) this.custom.set(cluster, (byName = new Map<string, ResourceType>()));
    byName.set(storageResource(type), type);
  }

  remove(cluster: string, resource: string): void {
    const byName = this.custom.get(cluster);
    byName?.delete(resource);
    if (byName?.size === 0) this.custom.delete(cluster);
  }

  /** Every resource served in `cluster` (or, with undefined, in any cluster: the wildcard view). */
  all(cluster: string | undefined): ResourceType[] {
    const custom =
      cluster === undefined ? [...this.custom.values()].flatMap((m) => [...m.values()]) : [...(this.custom.get(cluster)?.values() ?? [])];
    const seen = new Set<string>();
    const out: ResourceType[] = [];
    for (const t of [...BUILTINS, ...custom]) {
      const k = storageResource(t);
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(t);
    }
    return out;
  }

  /** The resource a request names, if served in `cluster` (undefined: any cluster) at `version`. One lookup per request. */
  find(cluster: string | undefined, group: string, version: string, resource: string): ResourceType | undefined {
    const name = storageResource({ group, resource });
    // A custom resource never shadows a built-in of the same name (as in all()).
    const type = BUILTIN_BY_NAME.get(name) ?? this.findCustom(cluster, name);
    return type?.versions.includes(version) ? type : undefined;
  }

  private findCustom(cluster: string | undefined, name: string): ResourceType | undefined {
    if (cluster !== undefined) return this.custom.get(cluster)?.get(name);
    for (const byName of this.custom.values()) {
      const type = byName.get(name);
      if (type) return type;
    }
    return undefined;
  }

  groups(cluster: string | undefined): ApiGroupInfo[] {
    const byGroup = new Map<string, Set<string>>();
    for (const t of this.all(cluster)) {
      if (t.group === '') continue;
      let set = byGroup.get(t.group);
      if (!set) byGroup.set(t.group, (set = new Set()));
      for (const v of t.versions) set.add(v);
    }
    return [...byGroup].map(([name, versions]) => ({ name, versions: sortKubeVersions(versions) }));
  }

  resourcesIn(cluster: string | undefined, group: string, version: string): ResourceType[] {
    return this.all(cluster)
      .filter((t) => t.group === group && t.versions.includes(version))
      .sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
  }

  hasGroupVersion(cluster: string | undefined, group: string, version: string): boolean {
    return this.all(cluster).some((t) => t.group === group && t.versions.includes(version));
  }
}
