/**
 * How strategic merge patches merge each built-in kind's lists, derived from builtin-schemas.ts (what the real
 * kube-apiserver's OpenAPI says) as dot-separated paths with `[]` for list items, the shape applyStrategicMergePatch
 * takes. Derived once per kind, on first use.
 */
import { BUILTIN_SCHEMAS } from './builtin-schemas.js';
import { LIST_STRATEGIES, type ListStrategy } from './patch/strategic-merge-patch.js';
import type { ResourceType } from './resource-type.js';

type Strategies = Readonly<Record<string, ListStrategy>>;

const byKind = new Map<string, Strategies>();

/** The list strategies of a built-in kind at `version`; the shared default for kinds the schemas do not know. */
export function listStrategiesFor(type: ResourceType, version: string): Strategies {
  const kind = `${type.group ? `${type.group}/${version}` : version}/${type.kind}`;
  let strategies = byKind.get(kind);
  if (!strategies) {
    const definition = BUILTIN_SCHEMAS.kinds[kind];
    strategies = definition ? strategiesOf(definition) : LIST_STRATEGIES;
    byKind.set(kind, strategies);
  }
  return strategies;
}

/** Every merging list reachable from `root`; a recursive type ends at its first repeat (or 14 levels down). */
function strategiesOf(root: string): Strategies {
  const { types, lists } = BUILTIN_SCHEMAS;
  const out: Record<string, ListStrategy> = {};
  const walk = (definition: string, path: string, seen: readonly string[]): void => {
    const fields = types[definition];
    if (!fields || path.split('.').length > 14) return;
    for (const [field, type] of Object.entries(fields)) {
      const child = path ? `${path}.${field}` : field;
      const item = type.startsWith('[]') ? type.slice(2) : undefined;
      const ref = types[item ?? type] ? (item ?? type) : undefined;
      if (ref && seen.includes(ref)) continue;
      if (item !== undefined) {
        const key = lists[definition]?.[field];
        if (key) out[child] = { kind: 'keyed', key };
        else if (key === '' && !ref) out[child] = { kind: 'set' };
        walk(item, `${child}[]`, ref ? [...seen, ref] : seen);
      } else if (ref) walk(ref, child, [...seen, ref]);
    }
  };
  walk(root, '', []);
  return out;
}
