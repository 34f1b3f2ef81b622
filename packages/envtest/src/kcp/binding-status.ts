/**
 * The statuses the fake kcp's controller writes, as pure functions of what it read: an APIBinding's (Bound and Ready,
 * or Binding with the reason it cannot bind) and an APIExportEndpointSlice's (its endpoint URLs). Conditions keep
 * their lastTransitionTime while their status stays, and a status equal but for timestamps is never rewritten.
 */
import type { Json } from './json.js';
import { nameOf, obj, objs, str } from './json.js';

/** What a binding's export resolved to: its schemas, and whether every schema it names exists. */
export interface ResolvedExport {
  readonly schemas: Json[];
  readonly valid: boolean;
}

/** Conditions compared without their timestamps, so a converged object is never rewritten. */
export function sameStatus(a: unknown, b: unknown): boolean {
  const strip = (s: unknown): unknown =>
    s && typeof s === 'object' ? { ...s, conditions: objs(s, 'conditions').map(({ lastTransitionTime: _t, ...c }) => c) } : s;
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b));
}

/** Keeps each condition's lastTransitionTime while its status stays the same. */
export function withTransitionTimes(conditions: Json[], previous: Json[]): Json[] {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return conditions.map((c) => {
    const prev = previous.find((p) => p['type'] === c['type']);
    return { ...c, lastTransitionTime: prev && prev['status'] === c['status'] ? prev['lastTransitionTime'] : now };
  });
}

/**
 * The status of a binding to the export `exportCluster/…` (`key`), resolved to `exp` (undefined: no such export).
 * `conflicts` names CustomResourceDefinitions of the workspace that claim an exported resource's name: kcp then
 * reports NamingConflicts and the binding is not Ready until they are gone.
 */
export function bindingStatus(key: string, exp: ResolvedExport | undefined, previous: unknown, conflicts: string[] = []): Json {
  const previousConditions = objs(previous, 'conditions');
  const apiExportClusterName = key.slice(0, key.indexOf('/'));
  if (exp?.valid && conflicts.length > 0) {
    const message = `naming conflicts with CustomResourceDefinitions in the workspace: ${conflicts.join(', ')}`;
    return {
      apiExportClusterName,
      phase: 'Binding',
      conditions: withTransitionTimes(
        [
          { type: 'APIExportValid', status: 'True' },
          { type: 'BindingUpToDate', status: 'False', reason: 'NamingConflicts', message },
          { type: 'Ready', status: 'False', reason: 'NamingConflicts', message },
        ],
        previousConditions,
      ),
    };
  }
  if (exp?.valid) {
    return {
      apiExportClusterName,
      phase: 'Bound',
      boundResources: exp.schemas.map((s) => ({
        group: str(s, 'spec', 'group'),
        resource: str(s, 'spec', 'names', 'plural'),
        schema: { name: nameOf(s), UID: str(s, 'metadata', 'uid') },
        storageVersions: objs(s, 'spec', 'versions')
          .filter((v) => v['storage'])
          .map((v) => v['name']),
      })),
      conditions: withTransitionTimes(
        [
          { type: 'APIExportValid', status: 'True' },
          { type: 'InitialBindingCompleted', status: 'True' },
          { type: 'Ready', status: 'True' },
        ],
        previousConditions,
      ),
    };
  }
  const reason = exp ? 'APIResourceSchemaNotFound' : 'APIExportNotFound';
  return {
    phase: 'Binding',
    conditions: withTransitionTimes(
      [
        {
          type: 'APIExportValid',
          status: 'False',
          reason,
          message: `APIExport ${key} ${exp ? 'names a schema that does not exist' : 'does not exist'}`,
        },
        { type: 'Ready', status: 'False', reason },
      ],
      previousConditions,
    ),
  };
}

/** The status of an endpoint slice listing `urls`; `exists` says whether its export exists. */
export function sliceStatus(urls: string[], exists: boolean, previous: unknown): Json {
  return {
    endpoints: urls.map((url) => ({ url })),
    conditions: withTransitionTimes(
      [
        exists
          ? { type: 'EndpointURLsReady', status: 'True' }
          : { type: 'EndpointURLsReady', status: 'False', reason: 'APIExportNotFound' },
      ],
      objs(previous, 'conditions'),
    ),
  };
}

/** The export a binding or slice refers to (`spec.reference.export` or `spec.export`): its path and name. */
export function exportRef(o: unknown, ...path: string[]): { path: string | undefined; name: string } {
  const ref = obj(o, ...path);
  return { path: str(ref, 'path'), name: str(ref, 'name') ?? '' };
}
