/**
 * The objects a fresh cluster has: the four namespaces kube-apiserver creates at start-up, and (outside logical
 * clusters) what it creates once it serves: the `kubernetes` Service, the two system PriorityClasses, and, with
 * `bootstrapPolicy`, what its post-start hooks write: the kube-system ConfigMaps and identity Lease, the RBAC bootstrap
 * policy, the API Priority and Fairness configuration and the default ServiceCIDR (bootstrap-objects.ts, taken from
 * the real server).
 */
import { cloneJson } from '@multicluster-runtime/apimachinery';
import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
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

/** Where a server listens, and the CA its clients' certificates are checked against. */
export interface Serving {
  readonly host: string;
  readonly securePort: number;
  readonly clientCaPem: string;
}

/**
 * Creates what kube-apiserver adds once it listens: the system PriorityClasses, the `kubernetes` Service in
 * `default` (the first address of the Service range, port 443 to the server's own port) and, with `bootstrapPolicy`,
 * what its post-start hooks write (kubeSystemObjects() and the policy). Not in logical-cluster mode: kcp's workspaces
 * have none of them.
 */
export function seedServingObjects(state: ApiState, serving: Serving): void {
  const { securePort } = serving;
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
  if (!state.options.bootstrapPolicy) return;
  for (const { group, resource, object } of kubeSystemObjects(serving)) create(group, resource, 'kube-system', object);
  seedBootstrapPolicy(state, create);
}

/**
 * What kube-apiserver's post-start hooks write to kube-system: the `extension-apiserver-authentication` ConfigMap
 * (the client CA, for aggregated API servers to trust), the ConfigMap that dates the tracking of legacy
 * service-account tokens, and the server's identity Lease (named as config.go names it, from the host name). The real
 * server renews its Lease every 10 s; this one is written once.
 */
function kubeSystemObjects(serving: Serving): { group: string; resource: string; object: StoredObject }[] {
  const now = new Date();
  const id = apiServerId(hostname());
  return [
    {
      group: '',
      resource: 'configmaps',
      object: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'extension-apiserver-authentication', namespace: 'kube-system' },
        data: { 'client-ca-file': serving.clientCaPem },
      },
    },
    {
      group: '',
      resource: 'configmaps',
      object: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'kube-apiserver-legacy-service-account-token-tracking', namespace: 'kube-system' },
        data: { since: now.toISOString().slice(0, 10) },
      },
    },
    {
      group: 'coordination.k8s.io',
      resource: 'leases',
      object: {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: {
          name: id,
          namespace: 'kube-system',
          labels: { 'apiserver.kubernetes.io/identity': 'kube-apiserver', 'kubernetes.io/hostname': hostname() },
          annotations: { 'kubernetes.io/peer-advertise-address': `${serving.host}:${serving.securePort}` },
        },
        spec: { holderIdentity: `${id}_${randomUUID()}`, leaseDurationSeconds: 3600, renewTime: microTime(now) },
      },
    },
  ];
}

/** `apiserver-` and the base32 of the first 16 bytes of SHA-256 over the length-prefixed host name and component. */
export function apiServerId(host: string): string {
  const prefixed = (text: string): Buffer => {
    const bytes = Buffer.from(text, 'utf8');
    const length = Buffer.alloc(2);
    length.writeUInt16BE(bytes.length);
    return Buffer.concat([length, bytes]);
  };
  const hash = createHash('sha256')
    .update(Buffer.concat([prefixed(host), prefixed('kube-apiserver')]))
    .digest();
  return `apiserver-${base32(hash.subarray(0, 16)).toLowerCase()}`;
}

/** RFC 4648 base32 without padding. */
function base32(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/** A metav1.MicroTime as Go writes it: RFC 3339 with microseconds, in UTC. */
function microTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}.${String(date.getUTCMilliseconds() * 1000).padStart(6, '0')}Z`;
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
    if (template.kind === 'ServiceCIDR') reportServiceCidrReady(state, target, cloneJson(adopted));
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
  const copy = cloneJson(created);
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
