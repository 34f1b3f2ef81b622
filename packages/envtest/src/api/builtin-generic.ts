/**
 * Every other built-in resource of the pinned Kubernetes version, served generically from its discovery document
 * (builtin-discovery.ts, checked against the real kube-apiserver): storage, watch, list, the status subresource where
 * the real server has one, metadata.generation for the kinds whose Go strategy maintains it, the workloads' `scale`
 * subresource, short names and categories; bodies are decoded and defaulted by builtin-decode.ts. What generic
 * serving does not give (kind-specific validation, other special subresources) is listed in the package README.
 */
import { BUILTIN_RESOURCES } from './builtin-resources.js';
import { BUILTIN_DISCOVERY, type DiscoverySnapshot } from './builtin-discovery.js';
import type { ResourceStrategy, ResourceType, ScalePaths, Verb } from './resource-type.js';
import { jobStrategy } from './strategies/job.js';
import { podStrategy } from './strategies/pod.js';
import { serviceStrategy } from './strategies/service.js';
import { daemonSetStrategy, deploymentStrategy, replicaSetStrategy, statefulSetStrategy } from './strategies/workloads.js';
import { ALL_VERBS } from './resource-type.js';

/** The workloads with a `scale` subresource, and where it reads and writes (their selector is a LabelSelector or a map). */
const WORKLOAD_SCALE: ScalePaths = {
  specReplicasPath: '.spec.replicas',
  statusReplicasPath: '.status.replicas',
  labelSelectorPath: '.spec.selector',
};
const SCALABLE = new Set(['apps/deployments', 'apps/replicasets', 'apps/statefulsets', '/replicationcontrollers']);

/** The create and update rules of generically served kinds that have some. */
const STRATEGIES: Readonly<Record<string, ResourceStrategy>> = {
  'apps/daemonsets': daemonSetStrategy,
  'apps/deployments': deploymentStrategy,
  'apps/replicasets': replicaSetStrategy,
  'apps/statefulsets': statefulSetStrategy,
  'batch/jobs': jobStrategy,
  '/pods': podStrategy,
  '/services': serviceStrategy,
};

/**
 * The generically served kinds whose Go strategy maintains metadata.generation (kubernetes v1.37's pkg/registry: set
 * to 1 on create, raised when the spec changes): not the same as having a status endpoint (a Service has one and no
 * generation, a PriorityClass the reverse). Deployments also raise it for annotations, EndpointSlices for labels.
 */
const GENERATION: Readonly<Record<string, Pick<ResourceType, 'tracksGeneration' | 'generationFollows'>>> = {
  '/pods': { tracksGeneration: true },
  '/podtemplates': { tracksGeneration: true },
  '/replicationcontrollers': { tracksGeneration: true },
  'admissionregistration.k8s.io/mutatingadmissionpolicies': { tracksGeneration: true },
  'admissionregistration.k8s.io/mutatingadmissionpolicybindings': { tracksGeneration: true },
  'admissionregistration.k8s.io/validatingadmissionpolicies': { tracksGeneration: true },
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': { tracksGeneration: true },
  'apps/daemonsets': { tracksGeneration: true },
  'apps/deployments': { tracksGeneration: true, generationFollows: 'annotations' },
  'apps/replicasets': { tracksGeneration: true },
  'apps/statefulsets': { tracksGeneration: true },
  'autoscaling/horizontalpodautoscalers': { tracksGeneration: true },
  'batch/cronjobs': { tracksGeneration: true },
  'batch/jobs': { tracksGeneration: true },
  'discovery.k8s.io/endpointslices': { tracksGeneration: true, generationFollows: 'labels' },
  'flowcontrol.apiserver.k8s.io/flowschemas': { tracksGeneration: true },
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': { tracksGeneration: true },
  'networking.k8s.io/ingressclasses': { tracksGeneration: true },
  'networking.k8s.io/ingresses': { tracksGeneration: true },
  'networking.k8s.io/networkpolicies': { tracksGeneration: true },
  'policy/poddisruptionbudgets': { tracksGeneration: true },
  'resource.k8s.io/deviceclasses': { tracksGeneration: true },
  'resource.k8s.io/devicetaintrules': { tracksGeneration: true },
  'resource.k8s.io/resourceslices': { tracksGeneration: true },
  'scheduling.k8s.io/priorityclasses': { tracksGeneration: 'create-only' },
};

/** Kinds whose Go strategy allows create on update: a PUT to a missing name creates the object. */
const CREATE_ON_UPDATE = new Set([
  '/endpoints',
  '/limitranges',
  '/services',
  'coordination.k8s.io/leasecandidates',
  'node.k8s.io/runtimeclasses',
  'rbac.authorization.k8s.io/clusterrolebindings',
  'rbac.authorization.k8s.io/clusterroles',
  'rbac.authorization.k8s.io/rolebindings',
  'rbac.authorization.k8s.io/roles',
]);

/** Kinds whose names are validated as path segments (rbac's ValidateRBACName), so `system:…` names are valid. */
const PATH_SEGMENT_NAMES = new Set([
  'rbac.authorization.k8s.io/clusterrolebindings',
  'rbac.authorization.k8s.io/clusterroles',
  'rbac.authorization.k8s.io/rolebindings',
  'rbac.authorization.k8s.io/roles',
]);

/** Listed by discovery but not stored objects, or served elsewhere in this server. */
const NOT_STORED = new Set(['componentstatuses']);

function fromDiscovery(snapshot: DiscoverySnapshot, defined: ReadonlySet<string>): ResourceType[] {
  const types: ResourceType[] = [];
  for (const [groupVersion, resources] of Object.entries(snapshot.resources)) {
    const [group, version] = groupVersion.includes('/') ? groupVersion.split('/') : ['', groupVersion];
    const subresources = new Map<string, string[]>();
    for (const r of resources.filter((r) => r.name.includes('/'))) {
      const [parent = '', sub = ''] = r.name.split('/');
      subresources.set(parent, [...(subresources.get(parent) ?? []), sub]);
    }
    for (const r of resources) {
      const verbs = r.verbs.filter((v): v is Verb => (ALL_VERBS as readonly string[]).includes(v));
      // Create-only reviews (TokenReview, SubjectAccessReview, …) and bindings are requests, not stored objects.
      if (r.name.includes('/') || !verbs.includes('get') || !verbs.includes('list') || NOT_STORED.has(r.name)) continue;
      if (defined.has(`${group}/${r.name}`)) continue;
      const status = (subresources.get(r.name) ?? []).includes('status');
      const scale = (subresources.get(r.name) ?? []).includes('scale') && SCALABLE.has(`${group}/${r.name}`);
      types.push({
        group: group!,
        versions: [version!],
        resource: r.name,
        singular: r.kind.toLowerCase(),
        kind: r.kind,
        listKind: `${r.kind}List`,
        namespaced: r.namespaced,
        ...(r.shortNames ? { shortNames: r.shortNames } : {}),
        ...(r.categories ? { categories: r.categories } : {}),
        verbs,
        subresources: [...(status ? ['status'] : []), ...(scale ? ['scale'] : [])],
        ...(scale ? { scale: WORKLOAD_SCALE } : {}),
        custom: false,
        tracksGeneration: false,
        ...GENERATION[`${group}/${r.name}`],
        allowCreateOnUpdate: CREATE_ON_UPDATE.has(`${group}/${r.name}`),
        allowUnconditionalUpdate: true,
        returnDeletedObject: r.name === 'pods',
        ...(PATH_SEGMENT_NAMES.has(`${group}/${r.name}`) ? { nameRule: 'pathSegment' as const } : {}),
        ...(STRATEGIES[`${group}/${r.name}`] ? { strategy: STRATEGIES[`${group}/${r.name}`] } : {}),
      });
    }
  }
  return types;
}

/** The built-ins served generically: every storable resource of the snapshot not defined by hand. */
export const GENERIC_BUILTIN_RESOURCES: readonly ResourceType[] = fromDiscovery(
  BUILTIN_DISCOVERY,
  new Set(BUILTIN_RESOURCES.map((t) => `${t.group}/${t.resource}`)),
);
