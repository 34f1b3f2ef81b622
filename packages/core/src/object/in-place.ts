/**
 * Writes a server's answer into the caller's object, as controller-runtime fills the Go object it was handed: helpers
 * such as createOrUpdate and the finalizer registry leave `obj` holding the stored state (new resourceVersion
 * included), so the caller's next write is not a stale one.
 */
export function replaceContents<T extends object>(target: T, source: object): T {
  if (target === source) return target;
  const t = target as Record<string, unknown>;
  for (const key of Object.keys(t)) if (!(key in source)) delete t[key];
  Object.assign(t, source);
  return target;
}
