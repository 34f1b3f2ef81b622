/** Create (POST to a collection; also create-on-update and create-on-apply). */
import { cloneJson } from '@multicluster-runtime/apimachinery';
import { generateName, prepareForCreate } from '../../api/object-meta.js';
import { alreadyExists, generateNameExhausted, invalid, unknownServerError } from '../../api/status-error.js';
import type { StoredObject } from '../../storage/types.js';
import type { ApiState } from '../api-state.js';
import type { CollectionTarget } from '../object-target.js';
import { objectKey } from '../object-target.js';
import { checkNamespace } from './body-checks.js';
import { admitNamespacedCreate } from './namespace-admission.js';
import { recordUpdate } from '../managed-fields.js';
import { badBody, decodeObject, fillZeroStatus } from './decode-object.js';
import type { WriteOptions } from './write-options.js';
import { strategyContext } from './strategy-context.js';

const GENERATE_NAME_ATTEMPTS = 8;

export function createObject(
  state: ApiState,
  target: CollectionTarget & { cluster: string },
  obj: StoredObject,
  opts: WriteOptions,
): StoredObject {
  const { type } = target;
  const gr = { group: type.group, resource: type.resource };
  const m = obj.metadata as Record<string, unknown>;
  if (m['resourceVersion'] !== undefined && m['resourceVersion'] !== '')
    throw unknownServerError('resourceVersion should not be set on objects to be created');
  checkNamespace(obj, target.namespace);
  const prefix = typeof m['generateName'] === 'string' ? m['generateName'] : '';
  const generated = (typeof m['name'] !== 'string' || m['name'] === '') && prefix !== '';
  if (type.namespaced && target.namespace !== undefined)
    admitNamespacedCreate(state, target.cluster, target.namespace, gr, typeof m['name'] === 'string' ? m['name'] : '');

  const decoded = cloneJson(obj);
  decodeObject(type, target.version, decoded, opts, badBody(type, target.version));
  for (let attempt = 0; ; attempt++) {
    const candidate = attempt === 0 ? decoded : cloneJson(decoded);
    if (generated) candidate.metadata.name = generateName(prefix);
    const errs = prepareForCreate(type, candidate, target.namespace, strategyContext(state, target));
    fillZeroStatus(type, target.version, candidate);
    if (errs.length > 0) throw invalid(type.group, type.kind, String(candidate.metadata.name ?? ''), errs);
    if (!opts.applying) recordUpdate(candidate, undefined, opts.fieldManager, { type, version: target.version, subresource: undefined });
    const key = objectKey({ type, cluster: target.cluster, namespace: target.namespace, name: candidate.metadata.name });
    if (state.store.has(key)) {
      if (generated && attempt + 1 < GENERATE_NAME_ATTEMPTS) continue;
      throw generated ? generateNameExhausted(gr, candidate.metadata.name) : alreadyExists(gr, candidate.metadata.name);
    }
    if (opts.dryRun) {
      candidate.metadata.resourceVersion = '';
      return candidate;
    }
    return state.store.create(key, candidate);
  }
}
