/**
 * The smallest Reflect metadata polyfill that @peculiar/x509's dependency tsyringe needs at import time (it throws
 * without one). Installed only when no polyfill is present, and only the three functions tsyringe calls, so a real
 * `reflect-metadata` loaded by the application always wins. Must be imported before '@peculiar/x509'.
 */
type MetadataKey = unknown;
type PropertyKeyOrNone = string | symbol | undefined;

interface ReflectWithMetadata {
  defineMetadata?: (key: MetadataKey, value: unknown, target: object, property?: PropertyKeyOrNone) => void;
  getOwnMetadata?: (key: MetadataKey, target: object, property?: PropertyKeyOrNone) => unknown;
  getMetadata?: (key: MetadataKey, target: object, property?: PropertyKeyOrNone) => unknown;
}

const reflect = Reflect as unknown as ReflectWithMetadata;

if (typeof reflect.getMetadata !== 'function') {
  const store = new WeakMap<object, Map<PropertyKeyOrNone, Map<MetadataKey, unknown>>>();
  const own = (target: object, property: PropertyKeyOrNone, create: boolean): Map<MetadataKey, unknown> | undefined => {
    let byProperty = store.get(target);
    if (!byProperty) {
      if (!create) return undefined;
      byProperty = new Map();
      store.set(target, byProperty);
    }
    let entries = byProperty.get(property);
    if (!entries && create) {
      entries = new Map();
      byProperty.set(property, entries);
    }
    return entries;
  };
  reflect.defineMetadata = (key, value, target, property) => {
    own(target, property, true)?.set(key, value);
  };
  reflect.getOwnMetadata = (key, target, property) => own(target, property, false)?.get(key);
  reflect.getMetadata = (key, target, property) => {
    // Like the real polyfill, walk the prototype chain.
    for (let t: object | null = target; t !== null; t = Object.getPrototypeOf(t) as object | null) {
      const entries = own(t, property, false);
      if (entries?.has(key)) return entries.get(key);
    }
    return undefined;
  };
}

export {};
