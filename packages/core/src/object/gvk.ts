/** Conversions between apiVersion strings, ObjectKind and GroupVersionKind. */
import type { GroupVersionKind, KubeObjectLike, ObjectKind } from './types.js';

/** Splits `apps/v1` into `{group: 'apps', version: 'v1'}` and `v1` into `{group: '', version: 'v1'}`. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return { group: '', version: apiVersion };
  return { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** Joins a group and version into an apiVersion (`v1` for the core group). */
export function formatApiVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** The group, version and kind of an `{ apiVersion, kind }`. */
export function toGroupVersionKind(kind: ObjectKind): GroupVersionKind {
  return { ...parseApiVersion(kind.apiVersion), kind: kind.kind };
}

/** The `{ apiVersion, kind }` of a group, version and kind. */
export function toObjectKind(gvk: GroupVersionKind): ObjectKind {
  return { apiVersion: formatApiVersion(gvk.group, gvk.version), kind: gvk.kind };
}

/** A stable string key for a kind, e.g. `apps/v1, Kind=Deployment` (the same form client-go prints). */
export function kindKey(kind: ObjectKind): string {
  return `${kind.apiVersion}, Kind=${kind.kind}`;
}

/** The kind of an object, or an error naming what is missing. */
export function objectKindOf(obj: KubeObjectLike): ObjectKind {
  if (!obj.apiVersion || !obj.kind) {
    throw new TypeError(`object ${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''} has no apiVersion/kind`);
  }
  return { apiVersion: obj.apiVersion, kind: obj.kind };
}
