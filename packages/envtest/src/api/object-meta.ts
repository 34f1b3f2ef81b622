/**
 * Metadata the server owns (apiserver registry/rest create.go, update.go, meta.go): uid, creationTimestamp,
 * generation, immutable fields, finalizer rules while deleting, and the status/spec split between the main endpoint
 * and the /status subresource.
 */
import { cloneJson } from '@multicluster-runtime/apimachinery';
import { randomInt, randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { StoredObject } from '../storage/types.js';
import type { FieldError } from './field-error.js';
import { forbiddenField, invalidValue, required } from './field-error.js';
import type { ResourceType, StrategyContext } from './resource-type.js';
import { hasStatus } from './resource-type.js';
import { validateMetadataMaps, validateName } from './validation.js';

/** For callers that write no kind whose rules read other objects. */
const NO_SIBLINGS: StrategyContext = { siblings: () => [], objectsOf: () => [] };

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

/** The second last formatted, and its text: every write stamps managedFields, many writes fall in one second. */
let lastStamp = { second: Number.NaN, text: '' };

/** RFC 3339 with seconds, as metav1.Time serializes. */
export function nowTimestamp(now?: Date): string {
  const second = Math.floor((now ? now.getTime() : Date.now()) / 1000);
  if (second !== lastStamp.second) lastStamp = { second, text: new Date(second * 1000).toISOString().replace('.000Z', 'Z') };
  return lastStamp.text;
}

/** `<prefix cut to 58>` + 5 random characters (apiserver pkg/storage/names). */
export function generateName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += NAME_CHARS[randomInt(NAME_CHARS.length)];
  return prefix.slice(0, 58) + suffix;
}

export function meta(obj: StoredObject): Record<string, unknown> {
  return obj.metadata;
}

export function finalizersOf(obj: StoredObject): string[] {
  const f = meta(obj)['finalizers'];
  return Array.isArray(f) ? (f as string[]) : [];
}

export function isDeleting(obj: StoredObject): boolean {
  return typeof meta(obj)['deletionTimestamp'] === 'string';
}

/** Server-set fields on create. The caller has already resolved generateName into metadata.name. */
export function prepareForCreate(
  type: ResourceType,
  obj: StoredObject,
  namespace: string | undefined,
  ctx: StrategyContext = NO_SIBLINGS,
  now = new Date(),
): FieldError[] {
  const m = meta(obj);
  for (const k of ['creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink', 'uid', 'resourceVersion'])
    delete m[k];
  if (type.namespaced) m['namespace'] = namespace;
  else delete m['namespace'];
  if (hasStatus(type)) delete obj['status'];
  m['uid'] = randomUUID();
  type.strategy?.prepareForCreate?.(obj, ctx);
  m['creationTimestamp'] = nowTimestamp(now);
  if (type.tracksGeneration) m['generation'] = 1;
  else delete m['generation'];
  return validateObject(type, obj, undefined, ctx);
}

/**
 * Server rules on update through the main endpoint or a subresource. Mutates `obj` into what is stored; returns
 * validation errors (422) if any.
 */
export function prepareForUpdate(
  type: ResourceType,
  obj: StoredObject,
  old: StoredObject,
  subresource: string | undefined,
  ctx: StrategyContext = NO_SIBLINGS,
): FieldError[] {
  const errs: FieldError[] = [];
  const m = meta(obj);
  const om = meta(old);
  if (subresource === 'status') {
    // Only status (and managedFields) come from the request; everything else stays as stored.
    const status = obj['status'];
    const managedFields = m['managedFields'];
    const rv = m['resourceVersion'];
    for (const k of Object.keys(obj)) delete obj[k];
    Object.assign(obj, cloneJson(old));
    if (status === undefined) delete obj['status'];
    else obj['status'] = status;
    if (managedFields !== undefined) meta(obj)['managedFields'] = managedFields;
    meta(obj)['resourceVersion'] = rv;
    return errs;
  }
  if (subresource === 'finalize') {
    const finalizers = (obj['spec'] as { finalizers?: unknown } | undefined)?.finalizers;
    const rv = m['resourceVersion'];
    for (const k of Object.keys(obj)) delete obj[k];
    Object.assign(obj, cloneJson(old));
    obj['spec'] = { ...(obj['spec'] ?? {}), finalizers: Array.isArray(finalizers) ? finalizers : [] };
    meta(obj)['resourceVersion'] = rv;
    return errs;
  }
  if (hasStatus(type)) {
    if (old['status'] === undefined) delete obj['status'];
    else obj['status'] = cloneJson(old['status']);
  }
  type.strategy?.prepareForUpdate?.(obj, old, ctx);

  if (m['uid'] === undefined || m['uid'] === '') m['uid'] = om['uid'];
  else if (m['uid'] !== om['uid']) errs.push(invalidValue('metadata.uid', m['uid'], 'field is immutable'));
  for (const k of ['creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds']) {
    if (om[k] === undefined) delete m[k];
    else m[k] = om[k];
  }
  delete m['selfLink'];
  if (isDeleting(old)) {
    const added = finalizersOf(obj).filter((f) => !finalizersOf(old).includes(f));
    if (added.length > 0)
      errs.push(
        forbiddenField(
          'metadata.finalizers',
          `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
        ),
      );
  }
  if (type.tracksGeneration) {
    const generation = typeof om['generation'] === 'number' ? om['generation'] : 1;
    m['generation'] = type.tracksGeneration !== 'create-only' && specChanged(type, obj, old) ? generation + 1 : generation;
  } else delete m['generation'];
  return [...errs, ...validateObject(type, obj, old, ctx)];
}

/** Anything outside metadata changed (status excluded when it has its own endpoint), or the metadata the kind's generation follows. */
function specChanged(type: ResourceType, obj: StoredObject, old: StoredObject): boolean {
  const strip = (o: StoredObject): Record<string, unknown> => {
    const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = o;
    if (hasStatus(type)) delete rest['status'];
    return rest;
  };
  const follows = type.generationFollows;
  const followed = (o: StoredObject): unknown => (follows ? ((o.metadata as Record<string, unknown>)[follows] ?? {}) : undefined);
  return !isDeepStrictEqual(strip(obj), strip(old)) || !isDeepStrictEqual(followed(obj), followed(old));
}

function validateObject(type: ResourceType, obj: StoredObject, old: StoredObject | undefined, ctx: StrategyContext): FieldError[] {
  const m = meta(obj);
  const errs: FieldError[] = [];
  const name = m['name'];
  if (typeof name !== 'string' || name === '') errs.push(required('metadata.name', 'name or generateName is required'));
  else if (!old) errs.push(...validateName(name, type.nameRule ?? 'subdomain'));
  errs.push(...validateMetadataMaps(m));
  errs.push(...(type.strategy?.validate?.(obj, old, ctx) ?? []));
  return errs;
}
