/** How runnables are named in logs and errors: their `name` property if they have one, else their class name. */
export function runnableName(r: object): string {
  const own = (r as { name?: unknown }).name;
  if (typeof own === 'string' && own !== '') return own;
  const ctor = (r as { constructor?: { name?: string } }).constructor?.name;
  return ctor && ctor !== 'Object' ? ctor : 'anonymous runnable';
}
