/**
 * The objects a fresh cluster has: the four namespaces kube-apiserver creates at start-up, and (outside logical
 * clusters) what it creates once it serves: the `kubernetes` Service, the two system PriorityClasses, and, with
 * `bootstrapPolicy`, the RBAC bootstrap policy, the API Priority and Fairness configuration and the default
 * ServiceCIDR (bootstrap-objects.ts, taken from the real server).
 */
import { randomUUID } from 'node:crypto';
import { BUILTIN_RESOURCES, NAMESPACE_RESOURCE } from '../api/builtin-resources.js';
import { storageResource } from '../api/resource-type.js';
import type { ApiState } from './api-state.js';
import type { StoredObject } from '../storage/types.js';
import { SYSTEM_PRIORITY_CLASSES } from '../api/strategies/pod.js';
import { createObject } from './ops/create.js';
import { updateObject } from './ops/update.js';
import { BOOTSTRAP_OBJECTS, BOOTSTRAP_RESOURCES, type BootstrapObject } from './bootstrap-objects.js';
import { nowTimestamp } from '../api/object-meta.js';
import { objectKey, type ObjectTarget } from './object-target.js';

export const SYSTEM_NAMESPACES = ['default', 'kube-node-lease', 'kube-public', 'kube-system'] as const;

/** Creates the system namespaces of a logical cluster the first time it is used. */
export function seedCluster(state: ApiState, cluster: string): void {
  if (state.seededClusters.has(cluster)) return;
  state.seededClusters.add(cluster);
  const type = BUILTIN_RESOURCES.find((t) => storageResource(t) === NAMESPACE_RESOURCE)!;
  for (const name of SYSTEM_NAMESPACES) {
    if (state.store.has({ cluster, resource: NAMESPACE_RESOURCE, namespace: '', name })) continue;
    createObject(
      state,
      { type, version: 'v1', cluster, namespace: undefined },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
      { dryRun: false, fieldManager: undefined },
    );
  }
}

/**
 * Creates what kube-apiserver adds once it listens: the system PriorityClasses and the `kubernetes` Service in
 * `default` (the first address of the Service range, port 443 to the server's own port). Not in logical-cluster
 * mode: kcp's workspaces have neither.
 */
export function seedServingObjects(state: ApiState, securePort: number): void {
  if (state.options.logicalClusters) return;
  const create = (group: string, resource: string, namespace: string | undefined, obj: StoredObject): StoredObject | undefined => {
    const type = state.registry.find('', group, 'v1', resource);
    const m = obj.metadata;
    if (!type || state.store.has({ cluster: '', resource: storageResource(type), namespace: namespace ?? '', name: m.name })) return;
    return createObject(state, { type, version: 'v1', cluster: '', namespace }, obj, { dryRun: false, fieldManager: undefined });
  };
  for (const { name, value, description } of SYSTEM_PRIORITY_CLASSES) {
    create('scheduling.k8s.io', 'priorityclasses', undefined, {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name },
      value,
      description,
    });
  }
  create('', 'services', 'default', {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: {
      type: 'ClusterIP',
      clusterIP: '10.0.0.1',
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: securePort }],
      sessionAffinity: 'None',
    },
  });
  if (state.options.bootstrapPolicy) seedBootstrapPolicy(state, create);
}

type Create = (group: string, resource: string, namespace: string | undefined, obj: StoredObject) => StoredObject | undefined;

/**
 * The policy as the first server of the process created it, deep-frozen, less what is each server's own (uid,
 * creationTimestamp, resourceVersion, managedFields times). Later servers store these with their own identity instead
 * of creating every object again: creating them took most of a server's start (9.5 of its 11.4 ms of CPU) and 460
 * KiB of its heap. Sharing is safe because no stored object is changed in place (see Store); a frozen part would throw if
 * one were.
 */
let policyTemplates: readonly StoredObject[] | undefined;

/** The RBAC policy, APF configuration and default ServiceCIDR, each object as the real server stores it. */
function seedBootstrapPolicy(state: ApiState, create: Create): void {
  if (policyTemplates) {
    adoptBootstrapPolicy(state, policyTemplates);
    return;
  }
  const templates: StoredObject[] = [];
  let whole = true;
  for (const obj of BOOTSTRAP_OBJECTS) {
    const target = bootstrapTarget(state, obj);
    if (!target) continue;
    // createObject copies what it is given: the shared objects stay as they are.
    const created = create(target.type.group, target.type.resource, target.namespace, obj);
    if (!created) {
      whole = false; // already there: a restarted server keeps its objects and recreates only what was deleted
      continue;
    }
    templates.push(asTemplate(created));
    if (obj.kind === 'ServiceCIDR') reportServiceCidrReady(state, target, created);
  }
  if (whole) policyTemplates = templates;
}

function adoptBootstrapPolicy(state: ApiState, templates: readonly StoredObject[]): void {
  const now = nowTimestamp();
  for (const template of templates) {
    const target = bootstrapTarget(state, template);
    if (!target) continue;
    const key = objectKey(target);
    if (state.store.has(key)) continue;
    const metadata: StoredObject['metadata'] = { ...template.metadata, uid: randomUUID(), creationTimestamp: now };
    const managedFields = template.metadata['managedFields'];
    if (Array.isArray(managedFields)) metadata['managedFields'] = managedFields.map((e: object) => ({ ...e, time: now }));
    const adopted = { ...template, metadata };
    state.store.adopt(key, adopted);
    if (template.kind === 'ServiceCIDR') reportServiceCidrReady(state, target, structuredClone(adopted));
  }
}

/** Where a bootstrap object is stored, or undefined for a kind this server does not serve. */
function bootstrapTarget(state: ApiState, obj: StoredObject | BootstrapObject): ObjectTarget | undefined {
  const apiVersion = String(obj.apiVersion);
  const resource = RESOURCE_OF_KIND.get(`${apiVersion}/${String(obj.kind)}`);
  const type = resource === undefined ? undefined : state.registry.find('', apiVersion.slice(0, apiVersion.indexOf('/')), 'v1', resource);
  if (!type) return undefined;
  return { type, version: 'v1', cluster: '', namespace: obj.metadata.namespace, name: obj.metadata.name, subresource: undefined };
}

/** A frozen copy of a created object without its identity (empty placeholders, so keys keep their order). */
function asTemplate(created: StoredObject): StoredObject {
  const copy = structuredClone(created);
  const metadata: StoredObject['metadata'] = { ...copy.metadata, uid: '', creationTimestamp: '' };
  delete metadata.resourceVersion;
  const managedFields = metadata['managedFields'];
  if (Array.isArray(managedFields)) metadata['managedFields'] = managedFields.map((e: object) => ({ ...e, time: '' }));
  return deepFreeze({ ...copy, metadata });
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}

/** The ServiceCIDR controller reports the default range ready at once. */
function reportServiceCidrReady(state: ApiState, target: ObjectTarget, created: StoredObject): void {
  const ready = {
    type: 'Ready',
    status: 'True',
    reason: '',
    message: 'Kubernetes default Service CIDR is ready',
    lastTransitionTime: nowTimestamp(),
  };
  updateObject(
    state,
    { ...target, subresource: 'status' },
    { ...created, status: { conditions: [ready] } },
    { dryRun: false, fieldManager: undefined },
  );
}

const RESOURCE_OF_KIND = new Map<string, string>(BOOTSTRAP_RESOURCES.map((r) => [`${r.groupVersion}/${r.kind}`, r.resource]));
