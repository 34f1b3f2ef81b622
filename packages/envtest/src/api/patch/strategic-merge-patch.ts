/**
 * Strategic merge patch for the built-ins (apimachinery pkg/util/strategicpatch): a merge patch where some lists merge
 * instead of being replaced, so concurrent controllers do not drop each other's finalizers and owner references.
 * Directives: `$patch: replace|delete|merge`, `$retainKeys`, `$deleteFromPrimitiveList/<f>`, `$setElementOrder/<f>`.
 */
import { isPlainObject } from './merge-patch.js';
import { valueText } from '../value-text.js';

/** How a list field merges: a set of primitives, or objects keyed by a merge key. Other lists are replaced. */
export type ListStrategy = { kind: 'set' } | { kind: 'keyed'; key: string };

/** Field paths (dot-separated, list items as `[]`) with a merge strategy, shared by every built-in type. */
export const LIST_STRATEGIES: Readonly<Record<string, ListStrategy>> = {
  'metadata.finalizers': { kind: 'set' },
  'metadata.ownerReferences': { kind: 'keyed', key: 'uid' },
  'metadata.managedFields': { kind: 'keyed', key: 'manager' },
  'status.conditions': { kind: 'keyed', key: 'type' },
  'spec.containers': { kind: 'keyed', key: 'name' },
  'spec.initContainers': { kind: 'keyed', key: 'name' },
  'spec.volumes': { kind: 'keyed', key: 'name' },
  'spec.containers[].env': { kind: 'keyed', key: 'name' },
  'spec.containers[].volumeMounts': { kind: 'keyed', key: 'mountPath' },
  'spec.containers[].ports': { kind: 'keyed', key: 'containerPort' },
};

export class StrategicMergePatchError extends Error {
  override name = 'StrategicMergePatchError';
}

/** Which lists merge, by path; the kind's own table (builtin-list-strategies.ts) or the shared default. */
type Strategies = Readonly<Record<string, ListStrategy>>;

export function applyStrategicMergePatch(original: unknown, patch: unknown, strategies: Strategies = LIST_STRATEGIES): unknown {
  if (!isPlainObject(patch)) throw new StrategicMergePatchError('strategic merge patch must be a JSON object');
  return mergeMap(isPlainObject(original) ? original : {}, patch, '', strategies) ?? {};
}

function mergeMap(
  original: Record<string, unknown>,
  patch: Record<string, unknown>,
  path: string,
  strategies: Strategies,
): Record<string, unknown> | undefined {
  const directive = patch['$patch'];
  if (directive === 'delete') return undefined;
  if (directive === 'replace') return stripDirectives(patch);
  if (directive !== undefined && directive !== 'merge') throw new StrategicMergePatchError(`unknown patch type: ${valueText(directive)}`);
  const out: Record<string, unknown> = { ...original };
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys' || key.startsWith('$setElementOrder/')) continue;
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      const current = out[field];
      if (Array.isArray(current) && Array.isArray(value)) out[field] = current.filter((x) => !value.includes(x));
      continue;
    }
    const childPath = path ? `${path}.${key}` : key;
    if (value === null) delete out[key];
    else if (Array.isArray(value)) {
      const order = patch[`$setElementOrder/${key}`];
      out[key] = mergeList(out[key], value, childPath, Array.isArray(order) ? order : undefined, strategies);
    } else if (isPlainObject(value)) {
      const merged = mergeMap(isPlainObject(out[key]) ? out[key] : {}, value, childPath, strategies);
      if (merged === undefined) delete out[key];
      else out[key] = merged;
    } else out[key] = value;
  }
  const retain = patch['$retainKeys'];
  if (Array.isArray(retain)) for (const k of Object.keys(out)) if (!retain.includes(k)) delete out[k];
  return out;
}

function mergeList(
  original: unknown,
  patch: unknown[],
  path: string,
  setElementOrder: unknown[] | undefined,
  strategies: Strategies,
): unknown[] {
  const strategy = strategies[path];
  const replaceDirective = patch.some((x) => isPlainObject(x) && x['$patch'] === 'replace');
  if (!strategy || replaceDirective) return patch.filter((x) => !(isPlainObject(x) && x['$patch'] === 'replace')).map(stripDeep);
  const server: unknown[] = Array.isArray(original) ? original : [];
  const identity = (x: unknown): unknown => (strategy.kind === 'keyed' && isPlainObject(x) ? x[strategy.key] : x);
  const current = [...server];
  if (strategy.kind === 'set') {
    for (const v of patch) if (!current.includes(v)) current.push(v);
  } else {
    for (const item of patch) {
      if (!isPlainObject(item)) throw new StrategicMergePatchError(`${path}: expected objects with merge key "${strategy.key}"`);
      const keyValue = item[strategy.key];
      const index = current.findIndex((c) => isPlainObject(c) && c[strategy.key] === keyValue);
      if (item['$patch'] === 'delete') {
        if (index >= 0) current.splice(index, 1);
        continue;
      }
      if (index >= 0) current[index] = mergeMap(current[index] as Record<string, unknown>, item, `${path}[]`, strategies);
      else current.push(stripDirectives(item));
    }
  }
  return normalizeOrder(current, (setElementOrder ?? patch).map(identity), server.map(identity), identity);
}

/**
 * The element order strategicpatch gives a merged list: items named by the patch in patch order, with the items only
 * the server has slotted in before the first patch item that comes after them on the server. New items therefore
 * lead, which is what clients comparing lists after a patch observe.
 */
function normalizeOrder(merged: unknown[], patchOrder: unknown[], serverOrder: unknown[], identity: (x: unknown) => unknown): unknown[] {
  const inPatch = (x: unknown): boolean => patchOrder.includes(identity(x));
  const byIndexIn = (order: unknown[]) => (a: unknown, b: unknown) => order.indexOf(identity(a)) - order.indexOf(identity(b));
  const patched = merged.filter(inPatch).sort(byIndexIn(patchOrder));
  const serverOnly = merged.filter((x) => !inPatch(x)).sort(byIndexIn(serverOrder));
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < patched.length) {
    if (j >= patched.length) out.push(serverOnly[i++]);
    else if (i >= serverOnly.length) out.push(patched[j++]);
    else {
      const l = serverOrder.indexOf(identity(serverOnly[i]));
      const r = serverOrder.indexOf(identity(patched[j]));
      if (l >= 0 && r >= 0 && l < r) out.push(serverOnly[i++]);
      else out.push(patched[j++]);
    }
  }
  return out;
}

function stripDirectives(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (!k.startsWith('$')) out[k] = stripDeep(v);
  return out;
}

function stripDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripDeep);
  if (isPlainObject(v)) return stripDirectives(v);
  return v;
}
