/**
 * The objects a fresh cluster has: the four namespaces kube-apiserver creates at start-up, and (outside logical
 * clusters) what it creates once it serves: the `kubernetes` Service, the two system PriorityClasses, and, with
 * `bootstrapPolicy`, the RBAC bootstrap policy, the API Priority and Fairness configuration and the default
 * ServiceCIDR (bootstrap-objects.ts, taken from the real server).
 */
import { BUILTIN_RESOURCES, NAMESPACE_RESOURCE } from '../api/builtin-resources.js';
import { storageResource } from '../api/resource-type.js';
import type { ApiState } from './api-state.js';
import type { StoredObject } from '../storage/types.js';
import { SYSTEM_PRIORITY_CLASSES } from '../api/strategies/pod.js';
import { createObject } from './ops/create.js';
import { updateObject } from './ops/update.js';
import { BOOTSTRAP_OBJECTS, BOOTSTRAP_RESOURCES } from './bootstrap-objects.js';

export const SYSTEM_NAMESPACES = ['default', 'kube-node-lease', 'kube-public', 'kube-system'] as const;

/** Creates the system namespaces of a logical cluster the first time it is used. */
export function seedCluster(state: ApiState, cluster: string): void {
  if (state.seededClusters.has(cluster)) return;
  state.seededClusters.add(cluster);
  const type = BUILTIN_RESOURCES.find((t) => storageResource(t) === NAMESPACE_RESOURCE)!;
  for (const name of SYSTEM_NAMESPACES) {
    if (state.store.get({ cluster, resource: NAMESPACE_RESOURCE, namespace: '', name })) continue;
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
    if (!type || state.store.get({ cluster: '', resource: storageResource(type), namespace: namespace ?? '', name: m.name })) return;
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

/** The RBAC policy, APF configuration and default ServiceCIDR, each object as the real server stores it. */
function seedBootstrapPolicy(state: ApiState, create: Create): void {
  for (const obj of BOOTSTRAP_OBJECTS) {
    const resource = RESOURCE_OF_KIND.get(`${obj.apiVersion}/${obj.kind}`);
    if (!resource) continue;
    const group = obj.apiVersion.slice(0, obj.apiVersion.indexOf('/'));
    // createObject copies what it is given: the shared objects stay as they are.
    const created = create(group, resource, obj.metadata.namespace, obj);
    // The ServiceCIDR controller reports the default range ready at once.
    if (created && obj.kind === 'ServiceCIDR') {
      const ready = {
        type: 'Ready',
        status: 'True',
        reason: '',
        message: 'Kubernetes default Service CIDR is ready',
        lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      };
      updateObject(
        state,
        {
          type: state.registry.find('', group, 'v1', resource)!,
          version: 'v1',
          cluster: '',
          namespace: undefined,
          name: obj.metadata.name,
          subresource: 'status',
        },
        { ...created, status: { conditions: [ready] } },
        { dryRun: false, fieldManager: undefined },
      );
    }
  }
}

const RESOURCE_OF_KIND = new Map<string, string>(BOOTSTRAP_RESOURCES.map((r) => [`${r.groupVersion}/${r.kind}`, r.resource]));
