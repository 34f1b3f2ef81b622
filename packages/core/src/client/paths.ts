/** Builds API paths for a resource mapping: `/api/v1/namespaces/ns/configmaps/name/status`. */
import type { ResourceMapping } from './types.js';

/** The API path of a group and version: `/api/v1` for the core group, `/apis/<group>/<version>` otherwise. */
export function groupVersionPath(group: string, version: string): string {
  return group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
}

/**
 * The path of a collection (no name) or an item. For a namespaced resource without a namespace the path is the
 * all-namespaces collection, which only supports list and watch.
 */
export function resourcePath(mapping: ResourceMapping, namespace?: string, name?: string, subresource?: string): string {
  let path = groupVersionPath(mapping.group, mapping.version);
  if (mapping.namespaced && namespace) path += `/namespaces/${encodeURIComponent(namespace)}`;
  path += `/${mapping.resource}`;
  if (name !== undefined) path += `/${encodeURIComponent(name)}`;
  if (subresource !== undefined) path += `/${subresource}`;
  return path;
}
