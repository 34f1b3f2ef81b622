/**
 * The identity rate limiters use to count an item's failures when no key function is given: strings stand for
 * themselves, other values are keyed by their canonical JSON (object keys sorted), so two equal plain objects built
 * in a different property order share a count.
 */
export function defaultItemKey(item: unknown): string {
  if (typeof item === 'string') return item;
  return canonicalJson(item);
}

function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? String(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
}
