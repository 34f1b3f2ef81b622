/**
 * Field ownership in metadata.managedFields (FieldsV1): appliers own what they applied (operation Apply), other
 * writers own the fields they changed (operation Update). Applying a value to a field another manager owns is a
 * 409 conflict unless forced, which moves the ownership.
 */
import { cloneJson } from '@multicluster-runtime/apimachinery';
import { conflict } from '../api/status-error.js';
import { StatusError } from '../api/status-error.js';
import { isPlainObject } from '../api/patch/merge-patch.js';
import { LIST_STRATEGIES } from '../api/patch/strategic-merge-patch.js';
import { nowTimestamp } from '../api/object-meta.js';
import { groupVersion } from '../api/resource-type.js';
import type { StoredObject } from '../storage/types.js';
import type { ObjectTarget } from './object-target.js';

interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

const IGNORED_METADATA = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'managedFields',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
]);

/**
 * Records `manager`'s apply of `applied` into `result` (the object about to be stored). Throws 409 when another
 * applier owns a field this apply sets to a different value, unless `force`.
 */
export function recordApply(
  result: StoredObject,
  old: StoredObject | undefined,
  applied: StoredObject,
  manager: string,
  target: ObjectTarget,
  force: boolean,
): void {
  const fields = fieldSet(applied, !target.type.custom);
  const all = Array.isArray(result.metadata['managedFields']) ? (result.metadata['managedFields'] as ManagedFieldsEntry[]) : [];
  const isMine = (e: ManagedFieldsEntry): boolean =>
    e.manager === manager && e.operation === 'Apply' && (e.subresource ?? undefined) === target.subresource;
  const previous = all.find(isMine);
  const entries = all.filter((e) => !isMine(e));
  if (old) {
    const conflicts: { manager: string; field: string }[] = [];
    for (const e of entries) {
      if ((e.subresource ?? undefined) !== target.subresource) continue;
      const owned = leafPaths(e.fieldsV1);
      // Update managers are named with the version they wrote through, as the real server's conflict text does.
      const who = e.operation === 'Apply' ? `"${e.manager}"` : `"${e.manager}" using ${e.apiVersion}`;
      for (const [path, value] of fields) {
        if (!owned.has(path)) continue;
        const before = valueAt(old, path);
        if (JSON.stringify(before) !== JSON.stringify(value)) conflicts.push({ manager: who, field: displayPath(path) });
      }
    }
    if (conflicts.length > 0 && !force) throw applyConflict(target, conflicts);
    if (force)
      for (const e of entries) {
        const owned = leafPaths(e.fieldsV1);
        for (const path of fields.keys()) owned.delete(path);
        e.fieldsV1 = toFieldsV1([...owned]);
      }
  }
  if (previous) {
    // Fields this manager applied before and leaves out now are removed, unless another manager owns them too.
    const othersOwn = new Set(entries.flatMap((e) => [...leafPaths(e.fieldsV1)]));
    for (const path of leafPaths(previous.fieldsV1)) if (!fields.has(path) && !othersOwn.has(path)) removePath(result, path);
  }
  const apiVersion = groupVersion(target.type.group, target.version);
  const fieldsV1 = toFieldsV1([...fields.keys()]);
  // The same fields through the same version keep their time, as the real server's do: an identical apply is a no-op.
  const unchanged = previous?.apiVersion === apiVersion && JSON.stringify(previous.fieldsV1) === JSON.stringify(fieldsV1);
  const entry: ManagedFieldsEntry = {
    manager,
    operation: 'Apply',
    apiVersion,
    time: unchanged ? previous.time : nowTimestamp(),
    fieldsType: 'FieldsV1',
    fieldsV1,
  };
  if (target.subresource) entry.subresource = target.subresource;
  result.metadata['managedFields'] = [...entries.filter((e) => Object.keys(e.fieldsV1).length > 0), entry];
}

/**
 * Records a non-apply write by `manager` (fieldManager, or the User-Agent): it takes ownership of every field it
 * changed, and fields it changed or removed leave other managers' sets. A write that changes nothing changes
 * nothing here either, so no-op writes stay no-ops. Client-sent managedFields are ignored.
 */
export function recordUpdate(
  result: StoredObject,
  old: StoredObject | undefined,
  manager: string | undefined,
  target: Pick<ObjectTarget, 'type' | 'version' | 'subresource'>,
): void {
  const builtin = !target.type.custom;
  const entries: ManagedFieldsEntry[] =
    old && Array.isArray(old.metadata['managedFields']) ? cloneJson(old.metadata['managedFields'] as ManagedFieldsEntry[]) : [];
  const before = old ? fieldSet(old, builtin, true) : new Map<string, unknown>();
  const after = fieldSet(result, builtin, true);
  const touched = new Set<string>();
  for (const [path, value] of after) if (!before.has(path) || JSON.stringify(before.get(path)) !== JSON.stringify(value)) touched.add(path);
  const changed = [...touched];
  for (const path of before.keys()) if (!after.has(path)) touched.add(path);
  if (touched.size > 0) {
    for (const e of entries) {
      const owned = leafPaths(e.fieldsV1);
      for (const path of touched) owned.delete(path);
      e.fieldsV1 = toFieldsV1([...owned]);
    }
    if (manager && changed.length > 0) {
      const sub = target.subresource;
      let mine = entries.find((e) => e.manager === manager && e.operation === 'Update' && (e.subresource ?? undefined) === sub);
      if (!mine) {
        mine = {
          manager,
          operation: 'Update',
          apiVersion: '',
          time: '',
          fieldsType: 'FieldsV1',
          fieldsV1: {},
          ...(sub ? { subresource: sub } : {}),
        };
        entries.push(mine);
      }
      mine.apiVersion = groupVersion(target.type.group, target.version);
      mine.time = nowTimestamp();
      mine.fieldsV1 = toFieldsV1([...leafPaths(mine.fieldsV1), ...changed]);
    }
  }
  const kept = entries.filter((e) => Object.keys(e.fieldsV1).length > 0);
  if (kept.length > 0) result.metadata['managedFields'] = kept;
  else delete result.metadata['managedFields'];
}

/** Map fields of the built-ins (Go maps, not structs): like lists, an Update that adds one owns the map itself too. */
const BUILTIN_MAP_FIELDS = new Set(['data', 'binaryData', 'metadata.labels', 'metadata.annotations']);

/** List items kept whole (`+structType=atomic`): owned as one leaf, not field by field. */
const ATOMIC_ITEMS = new Set(['metadata.ownerReferences']);

/** The path segment that stands for a map, list or list item itself (FieldsV1's `"."`). */
const SELF = '.';

/**
 * Leaf paths (joined with \u0001) of the fields an object sets, with their values. With `containers`, maps and
 * lists also appear as `<path>\u0001.`, so an Update that adds one owns it as the real server's does; Apply owns
 * leaves only.
 */
function fieldSet(obj: StoredObject, builtin: boolean, containers = false): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const own = (path: string[]): void => {
    if (containers) out.set([...path, SELF].join('\u0001'), null);
  };
  const walk = (value: unknown, path: string[], dotted: string): void => {
    if (isPlainObject(value) && Object.keys(value).length > 0) {
      // Built-in structs always exist in Go (zero values), so adding one adds only its fields; a CR's objects and
      // any Go map are new containers.
      const isMap = builtin ? BUILTIN_MAP_FIELDS.has(dotted) || dotted.endsWith('[]') : path.length > 0 && dotted !== 'metadata';
      if (isMap) own(path);
      for (const [k, v] of Object.entries(value)) {
        if (path.length === 0 && (k === 'apiVersion' || k === 'kind')) continue;
        if (path.length === 1 && path[0] === 'f:metadata' && IGNORED_METADATA.has(k)) continue;
        walk(v, [...path, `f:${k}`], dotted ? `${dotted}.${k}` : k);
      }
      return;
    }
    // ObjectMeta is the same schema in custom resources, so its lists merge there too.
    const strategy = builtin || dotted.startsWith('metadata.') ? LIST_STRATEGIES[dotted] : undefined;
    if (Array.isArray(value) && value.length > 0 && strategy?.kind === 'keyed') {
      own(path);
      for (const item of value) {
        if (!isPlainObject(item)) continue;
        const itemPath = [...path, `k:${JSON.stringify({ [strategy.key]: item[strategy.key] })}`];
        if (ATOMIC_ITEMS.has(dotted)) out.set(itemPath.join('\u0001'), item);
        else walk(item, itemPath, `${dotted}[]`);
      }
      return;
    }
    if (Array.isArray(value) && value.length > 0 && strategy?.kind === 'set') {
      own(path);
      for (const item of value) out.set([...path, `v:${JSON.stringify(item)}`].join('\u0001'), item);
      return;
    }
    out.set(path.join('\u0001'), value);
  };
  walk(obj, [], '');
  return out;
}

function toFieldsV1(paths: string[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const p of paths) {
    let node = root;
    for (const part of p.split('\u0001')) node = (node[part] ??= {}) as Record<string, unknown>;
  }
  return root;
}

function leafPaths(fieldsV1: Record<string, unknown>): Set<string> {
  const out = new Set<string>();
  const walk = (node: Record<string, unknown>, path: string[]): void => {
    const keys = Object.keys(node);
    if (keys.length === 0 && path.length > 0) out.add(path.join('\u0001'));
    for (const k of keys) walk((node[k] ?? {}) as Record<string, unknown>, [...path, k]);
  };
  walk(fieldsV1, []);
  return out;
}

function valueAt(obj: unknown, path: string, root = false): unknown {
  let cur: unknown = obj;
  if (root) return cur;
  for (const part of path.split('\u0001')) {
    if (part.startsWith('f:')) cur = isPlainObject(cur) ? cur[part.slice(2)] : undefined;
    else if (part.startsWith('k:')) {
      const sel = JSON.parse(part.slice(2)) as Record<string, unknown>;
      const [k, v] = Object.entries(sel)[0]!;
      cur = Array.isArray(cur) ? cur.find((i) => isPlainObject(i) && i[k] === v) : undefined;
    } else if (part.startsWith('v:')) {
      const v = JSON.parse(part.slice(2)) as unknown;
      cur = Array.isArray(cur) && cur.includes(v) ? v : undefined;
    }
  }
  return cur;
}

function removePath(obj: unknown, path: string): void {
  const parts = path.split('\u0001');
  const last = parts.pop()!;
  const parent = valueAt(obj, parts.join('\u0001'), parts.length === 0);
  if (last.startsWith('f:') && isPlainObject(parent)) delete parent[last.slice(2)];
  else if (Array.isArray(parent)) {
    const index = last.startsWith('k:')
      ? parent.findIndex((i) => {
          const [k, v] = Object.entries(JSON.parse(last.slice(2)) as Record<string, unknown>)[0]!;
          return isPlainObject(i) && i[k] === v;
        })
      : parent.indexOf(JSON.parse(last.slice(2)) as unknown);
    if (index >= 0) parent.splice(index, 1);
  }
}

function displayPath(path: string): string {
  return path
    .split('\u0001')
    .map((p) => (p.startsWith('f:') ? `.${p.slice(2)}` : `[${p.slice(2)}]`))
    .join('');
}

function applyConflict(target: ObjectTarget, conflicts: { manager: string; field: string }[]): StatusError {
  const base = conflict({ group: target.type.group, resource: target.type.resource }, target.name, '');
  const lines = conflicts.map((c) => `conflict with ${c.manager}: ${c.field}`);
  const message =
    conflicts.length === 1
      ? `Apply failed with 1 conflict: ${lines[0]}`
      : `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  return new StatusError(409, 'Conflict', message, {
    ...base.details,
    causes: conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${c.manager}`, field: c.field })),
  });
}
