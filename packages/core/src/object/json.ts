/**
 * JSON value semantics for objects that go to the API server: a property set to `undefined` is the same as an absent
 * one (JSON.stringify drops both), and key order does not matter. Used to tell whether a mutation changed anything.
 */

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep equality as the server would see the two values once serialized. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (!isJsonObject(a) || !isJsonObject(b)) return false;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) if (!jsonEqual(a[k], b[k])) return false;
  return true;
}
