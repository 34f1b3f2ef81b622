/**
 * Maps a URL path to what it addresses: a discovery document, a resource collection, an object or one of its
 * subresources. Paths the server does not serve resolve to notFound: kube's plain-text 404 page outside the API
 * roots, a NotFound Status under /api and under a group it serves (`apiStatus`), as the real server's handlers do.
 */
import type { ResourceRegistry } from '../api/resource-registry.js';
import type { CollectionTarget } from './object-target.js';
import type { ResourceType } from '../api/resource-type.js';
import type { ActionTable } from './action-table.js';

export type Route =
  | { kind: 'coreVersions' }
  | { kind: 'groups' }
  | { kind: 'group'; group: string }
  | { kind: 'groupVersion'; group: string; version: string }
  | { kind: 'resource'; collection: CollectionTarget; name: string | undefined; subresource: string | undefined }
  | { kind: 'notFound'; apiStatus: boolean };

const NOT_FOUND: Route = { kind: 'notFound', apiStatus: false };
const NOT_FOUND_STATUS: Route = { kind: 'notFound', apiStatus: true };

export function resolveRoute(registry: ResourceRegistry, pathname: string, cluster: string | undefined, actions: ActionTable): Route {
  let segments: string[];
  try {
    segments = pathname
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
  } catch {
    return NOT_FOUND;
  }
  const [root, a, b] = segments;
  if (root === 'api') {
    if (a === undefined) return { kind: 'coreVersions' };
    if (a !== 'v1') return NOT_FOUND_STATUS;
    if (segments.length === 2) return { kind: 'groupVersion', group: '', version: 'v1' };
    return resourceRoute(registry, actions, cluster, '', 'v1', segments.slice(2)) ?? NOT_FOUND_STATUS;
  }
  if (root === 'apis') {
    if (a === undefined) return { kind: 'groups' };
    if (b === undefined) return registry.groups(cluster).some((g) => g.name === a) ? { kind: 'group', group: a } : NOT_FOUND;
    if (!registry.hasGroupVersion(cluster, a, b)) return registry.groups(cluster).some((g) => g.name === a) ? NOT_FOUND_STATUS : NOT_FOUND;
    if (segments.length === 3) return { kind: 'groupVersion', group: a, version: b };
    return resourceRoute(registry, actions, cluster, a, b, segments.slice(3)) ?? NOT_FOUND_STATUS;
  }
  return NOT_FOUND;
}

function resourceRoute(
  registry: ResourceRegistry,
  actions: ActionTable,
  cluster: string | undefined,
  group: string,
  version: string,
  rest: string[],
): Route | undefined {
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    const type = registry.find(cluster, group, version, rest[2]!);
    if (type?.namespaced) {
      if (rest.length > 5) return undefined;
      const subresource = rest[4];
      if (subresource !== undefined && !servesSubresource(actions, type, subresource)) return undefined;
      return { kind: 'resource', collection: { type, version, cluster, namespace: rest[1]! }, name: rest[3], subresource };
    }
  }
  const type = registry.find(cluster, group, version, rest[0]!);
  if (!type) return undefined;
  if (type.namespaced) {
    // The all-namespaces collection: list and watch only; no objects below it.
    if (rest.length !== 1) return undefined;
    return { kind: 'resource', collection: { type, version, cluster, namespace: undefined }, name: undefined, subresource: undefined };
  }
  if (rest.length > 3) return undefined;
  const subresource = rest[2];
  if (subresource !== undefined && !servesSubresource(actions, type, subresource)) return undefined;
  return { kind: 'resource', collection: { type, version, cluster, namespace: undefined }, name: rest[1], subresource };
}

function servesSubresource(actions: ActionTable, type: ResourceType, subresource: string): boolean {
  return type.subresources.includes(subresource) || actions.get(type.group, type.resource, subresource) !== undefined;
}
