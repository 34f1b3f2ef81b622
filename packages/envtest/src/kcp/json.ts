/**
 * Reading the objects the fake kcp stores with open schemas (apis.kcp.io kinds, claimed objects): untyped JSON, read
 * field by field. A missing or mistyped field reads as absent, never as a crash: tests may write any shape.
 */

/** A JSON object as the server returns it. */
export type Json = Record<string, unknown>;

const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value at `path`, or undefined. */
export function at(value: unknown, ...path: string[]): unknown {
  let v = value;
  for (const key of path) {
    if (!isJson(v)) return undefined;
    v = v[key];
  }
  return v;
}

/** The object at `path`, or an empty one. */
export function obj(value: unknown, ...path: string[]): Json {
  const v = at(value, ...path);
  return isJson(v) ? v : {};
}

/** The string at `path`, or undefined. */
export function str(value: unknown, ...path: string[]): string | undefined {
  const v = at(value, ...path);
  return typeof v === 'string' ? v : undefined;
}

/** The objects of the array at `path` (other entries skipped), or none. */
export function objs(value: unknown, ...path: string[]): Json[] {
  const v = at(value, ...path);
  return Array.isArray(v) ? v.filter(isJson) : [];
}

/** The strings of the array at `path` (other entries skipped), or none. */
export function strs(value: unknown, ...path: string[]): string[] {
  const v = at(value, ...path);
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
}

/** `metadata.name`, or "". */
export const nameOf = (o: unknown): string => str(o, 'metadata', 'name') ?? '';

/** The logical cluster an object of a wildcard list lives in (its `kcp.io/cluster` annotation), or "". */
export const clusterOf = (o: unknown): string => str(o, 'metadata', 'annotations', 'kcp.io/cluster') ?? '';

/**
 * The body that writes `status` over a listed object: the listed object without the `kcp.io/cluster` annotation
 * (the server adds it to what it returns; it is not stored) and with the listed resourceVersion, so a stale write is a
 * conflict.
 */
export function statusUpdate(listed: Json, status: Json): Json {
  const { annotations: _a, ...meta } = obj(listed, 'metadata');
  const { 'kcp.io/cluster': _c, ...rest } = obj(listed, 'metadata', 'annotations');
  return { ...listed, metadata: { ...meta, ...(Object.keys(rest).length ? { annotations: rest } : {}) }, status };
}
