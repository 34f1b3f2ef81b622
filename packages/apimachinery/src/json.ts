/**
 * JSON values, the shape every Kubernetes object has on the wire: a deep copy and an equality with the server's view
 * of them (a property set to `undefined` is the same as an absent one, as JSON.stringify drops both, and key order
 * does not matter). Core's cache copies on every read and envtest's in-memory server copies and compares on every
 * write, so both are plain walks that allocate nothing but the copy, rather than `structuredClone`'s serializer and
 * `util.isDeepStrictEqual`'s prototype and symbol checks.
 */

/**
 * A deep copy of a JSON value (what the API server sends: objects, arrays, strings, numbers, booleans, null), several
 * times cheaper than `structuredClone` for the small objects a cache read or a server's write copies. Anything that
 * is not plain JSON (a Date or Map a transform added) is copied with `structuredClone`. A `__proto__` key stays an own
 * property.
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneJson(value[i] as unknown);
    return out as T;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  // for-in, not Object.keys: no key array per object copied (JSON objects have no inherited enumerable keys).
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const copied = cloneJson((value as Record<string, unknown>)[key]);
    if (key === '__proto__') Object.defineProperty(out, key, { value: copied, enumerable: true, writable: true, configurable: true });
    else out[key] = copied;
  }
  return out as T;
}

/** Deep equality as the server would see the two values once serialized. Allocates nothing. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  // Every defined property of `left` must match one of `right`, and `right` must have no other defined ones.
  let defined = 0;
  for (const key in left) {
    if (!Object.hasOwn(left, key) || left[key] === undefined) continue;
    defined++;
    if (!Object.hasOwn(right, key) || !jsonEqual(left[key], right[key])) return false;
  }
  for (const key in right) if (Object.hasOwn(right, key) && right[key] !== undefined) defined--;
  return defined === 0;
}
