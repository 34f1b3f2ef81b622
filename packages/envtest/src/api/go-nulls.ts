/**
 * What a built-in object looks like as Go encodes it: a field Go writes as `null` when unset (builtin-nulls.ts) is
 * there as `null`, not left out. Applied when an object is presented, not when it is stored, so validation and
 * strategies keep seeing an unset field as absent; stored objects are shared, so only the objects on the way down to
 * a filled field are copied. A kind with no such field anywhere below it (ConfigMap, Secret) costs one lookup.
 */
import { BUILTIN_NULLS } from './builtin-nulls.js';
import { BUILTIN_SCHEMAS } from './builtin-schemas.js';
import { isPlainObject } from './patch/merge-patch.js';

/** Per definition with a null-when-unset field at or below it: those fields, and the fields to look below. */
const PLANS = plans();

interface Plan {
  readonly nulls: readonly string[];
  /** Fields whose type holds a definition that has a plan: [field, type]. */
  readonly below: readonly (readonly [string, string])[];
}

/** `obj` with Go's nulls, as the kind `definition` (builtin-schemas.ts) encodes; `obj` itself when it has none to add. */
export function withGoNulls<T extends Record<string, unknown>>(obj: T, definition: string | undefined): T {
  const plan = definition === undefined ? undefined : PLANS.get(definition);
  return plan ? (fillStruct(obj, plan) as T) : obj;
}

function fillStruct(obj: Record<string, unknown>, plan: Plan): Record<string, unknown> {
  let out = obj;
  const own = (): Record<string, unknown> => (out === obj ? (out = { ...obj }) : out);
  for (const field of plan.nulls) if (obj[field] === undefined) own()[field] = null;
  for (const [field, type] of plan.below) {
    const value = obj[field];
    if (value === undefined || value === null) continue;
    const filled = fillValue(value, type);
    if (filled !== value) own()[field] = filled;
  }
  return out;
}

function fillValue(value: unknown, type: string): unknown {
  if (type.startsWith('[]')) {
    if (!Array.isArray(value)) return value;
    const items = value.map((v: unknown) => fillValue(v, type.slice(2)));
    return items.some((v, i) => v !== value[i]) ? items : value;
  }
  if (!isPlainObject(value)) return value;
  if (type.startsWith('map[string]')) {
    const entries = Object.entries(value).map(([k, v]) => [k, fillValue(v, type.slice('map[string]'.length))] as const);
    return entries.some(([k, v]) => v !== value[k]) ? Object.fromEntries(entries) : value;
  }
  const plan = PLANS.get(type);
  return plan ? fillStruct(value, plan) : value;
}

/** The definition a field's type holds, through lists and maps; undefined for scalars. */
function elementDefinition(type: string): string | undefined {
  let t = type;
  for (;;) {
    if (t.startsWith('[]')) t = t.slice(2);
    else if (t.startsWith('map[string]')) t = t.slice('map[string]'.length);
    else break;
  }
  return BUILTIN_SCHEMAS.types[t] ? t : undefined;
}

function plans(): Map<string, Plan> {
  const reaching = new Set(Object.keys(BUILTIN_NULLS));
  const reaches = (type: string): boolean => {
    const element = elementDefinition(type);
    return element !== undefined && reaching.has(element);
  };
  for (let grew = true; grew;) {
    grew = false;
    for (const [definition, fields] of Object.entries(BUILTIN_SCHEMAS.types)) {
      if (reaching.has(definition) || !Object.values(fields).some(reaches)) continue;
      reaching.add(definition);
      grew = true;
    }
  }
  const out = new Map<string, Plan>();
  for (const definition of reaching) {
    const fields = Object.entries(BUILTIN_SCHEMAS.types[definition] ?? {});
    out.set(definition, { nulls: BUILTIN_NULLS[definition] ?? [], below: fields.filter(([, type]) => reaches(type)) });
  }
  return out;
}
