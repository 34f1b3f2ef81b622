/**
 * Pod rules: the status a new Pod starts with (Pending, and its QoS class from what its containers request and
 * limit); what the admission plugins a kube-apiserver runs by default add: the priority and preemption policy of its
 * PriorityClass (Priority, on create) and a five-minute toleration of not-ready and unreachable nodes
 * (DefaultTolerationSeconds, on create and update); and the update rule that a Pod's spec is fixed but for images, deadline, added tolerations and grace.
 * Without them a controller that reads a Pod's phase or QoS class, or rewrites a Pod, sees in memory what a real
 * cluster would not show it.
 */
import { cloneJson } from '@multicluster-runtime/apimachinery';
import { isDeepStrictEqual } from 'node:util';
import { isPlainObject } from '../patch/merge-patch.js';
import { forbiddenField } from '../field-error.js';
import type { StoredObject } from '../../storage/types.js';
import { struct } from '../builtin-go-defaults.js';
import type { ResourceStrategy, StrategyContext } from '../resource-type.js';
import { forbidden } from '../status-error.js';
import { quantityNanos } from '../quantity.js';
import { validatePodSpec } from './workloads.js';

type Obj = Record<string, unknown>;

/**
 * The priority classes every cluster has, as kube-apiserver writes them: the server creates them once it serves
 * (seed.ts; not in logical-cluster mode), and the Priority plugin answers for them where their objects are absent.
 */
export const SYSTEM_PRIORITY_CLASSES = [
  {
    name: 'system-node-critical',
    value: 2_000_001_000,
    description: 'Used for system critical pods that must not be moved from their current node.',
  },
  {
    name: 'system-cluster-critical',
    value: 2_000_000_000,
    description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
  },
] as const;

/**
 * The Priority admission plugin: the pod's class (its own, else the cluster's global default) gives its priority and
 * preemption policy; a class that does not exist, or a priority or policy the pod states that the class does not
 * give, is refused.
 */
function admitPriority(pod: StoredObject, spec: Obj, ctx: StrategyContext): void {
  const classes = ctx.objectsOf('priorityclasses.scheduling.k8s.io');
  let className = typeof spec['priorityClassName'] === 'string' ? spec['priorityClassName'] : '';
  let priority = 0;
  let preemptionPolicy = 'PreemptLowerPriority';
  const forbid = (why: string) => forbidden({ group: '', resource: 'pods' }, String(pod.metadata.name), why);
  if (className === '') {
    const globalDefault = classes.find((c) => c['globalDefault'] === true);
    if (globalDefault) className = globalDefault.metadata.name;
  }
  if (className !== '') {
    const found = classes.find((c) => c.metadata.name === className);
    if (found) {
      priority = typeof found['value'] === 'number' ? found['value'] : 0;
      if (typeof found['preemptionPolicy'] === 'string') preemptionPolicy = found['preemptionPolicy'];
    } else {
      const system = SYSTEM_PRIORITY_CLASSES.find((c) => c.name === className);
      if (system === undefined) throw forbid(`no PriorityClass with name ${className} was found`);
      priority = system.value;
    }
    spec['priorityClassName'] = className;
  }
  if (spec['priority'] !== undefined && spec['priority'] !== priority) {
    throw forbid(
      `the integer value of priority (${JSON.stringify(spec['priority'])}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`,
    );
  }
  if (spec['preemptionPolicy'] !== undefined && spec['preemptionPolicy'] !== preemptionPolicy) {
    throw forbid(
      `the string value of PreemptionPolicy (${typeof spec['preemptionPolicy'] === 'string' ? spec['preemptionPolicy'] : JSON.stringify(spec['preemptionPolicy'])}) must not be provided in pod spec; priority admission controller computed ${preemptionPolicy} from the given PriorityClass name`,
    );
  }
  spec['priority'] = priority;
  spec['preemptionPolicy'] = preemptionPolicy;
}

/** The resources QoS is computed from. */
const QOS_RESOURCES = ['cpu', 'memory'] as const;

function containersOf(spec: Obj): Obj[] {
  const all = [spec['initContainers'], spec['containers']].flatMap((list): unknown[] => (Array.isArray(list) ? list : []));
  return all.filter(isPlainObject);
}

/** Positive quantities of cpu and memory in `list`, in nano-units. */
function qosQuantities(list: unknown): Map<string, bigint> {
  const found = new Map<string, bigint>();
  if (!isPlainObject(list)) return found;
  for (const name of QOS_RESOURCES) {
    const value = quantityNanos(list[name]);
    if (value !== undefined && value > 0n) found.set(name, value);
  }
  return found;
}

function add(total: Map<string, bigint>, more: Map<string, bigint>): void {
  for (const [name, value] of more) total.set(name, (total.get(name) ?? 0n) + value);
}

/**
 * The Pod's QoS class, as qos.GetPodQOS computes it: BestEffort without any cpu or memory request or limit, Guaranteed
 * when every container limits both and the pod's requests equal its limits, Burstable otherwise. Pod-level resources,
 * when given, decide alone.
 */
function podQosClass(spec: Obj): 'BestEffort' | 'Burstable' | 'Guaranteed' {
  const requests = new Map<string, bigint>();
  const limits = new Map<string, bigint>();
  let everyContainerLimitsAll = true;
  const podLevel = isPlainObject(spec['resources']) ? spec['resources'] : undefined;
  const sources = podLevel ? [podLevel] : containersOf(spec).map((c) => (isPlainObject(c['resources']) ? c['resources'] : {}));
  for (const resources of sources) {
    add(requests, qosQuantities(resources['requests']));
    const limited = qosQuantities(resources['limits']);
    add(limits, limited);
    if (limited.size < QOS_RESOURCES.length) everyContainerLimitsAll = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (!everyContainerLimitsAll || limits.size < QOS_RESOURCES.length) return 'Burstable';
  for (const [name, value] of requests) if (limits.get(name) !== value) return 'Burstable';
  return 'Guaranteed';
}

/** DefaultTolerationSeconds: unless the pod already tolerates `key` with NoExecute, it does for five minutes. */
function defaultToleration(spec: Obj, key: string): void {
  const tolerations = Array.isArray(spec['tolerations']) ? (spec['tolerations'] as unknown[]) : [];
  const tolerated = tolerations.some(
    (t) =>
      isPlainObject(t) &&
      (t['effect'] === 'NoExecute' || t['effect'] === undefined || t['effect'] === '') &&
      (t['key'] === key || ((t['key'] === undefined || t['key'] === '') && t['operator'] === 'Exists')),
  );
  if (tolerated) return;
  spec['tolerations'] = [...tolerations, { key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }];
}

/** What an update may change in a running Pod's spec, as the real server's message lists it. */
const MUTABLE_FIELDS =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,' +
  '`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),' +
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** Whether an update changes more of the spec than a running Pod allows. */
function changesImmutableFields(spec: Obj, old: Obj): boolean {
  const strip = (from: Obj): Obj => {
    const part = cloneJson(from);
    for (const key of ['containers', 'initContainers']) {
      if (Array.isArray(part[key])) for (const c of part[key] as unknown[]) if (isPlainObject(c)) delete c['image'];
    }
    for (const key of ['activeDeadlineSeconds', 'tolerations', 'terminationGracePeriodSeconds']) delete part[key];
    return part;
  };
  if (!isDeepStrictEqual(strip(spec), strip(old))) return true;
  const before = Array.isArray(old['tolerations']) ? old['tolerations'] : [];
  const after = Array.isArray(spec['tolerations']) ? spec['tolerations'] : [];
  if (!before.every((t) => after.some((u) => isDeepStrictEqual(t, u)))) return true;
  const [graceBefore, grace] = [old['terminationGracePeriodSeconds'], spec['terminationGracePeriodSeconds']];
  return !isDeepStrictEqual(grace, graceBefore) && !(typeof graceBefore === 'number' && graceBefore < 0 && grace === 1);
}

export const podStrategy: ResourceStrategy = {
  prepareForCreate(pod: StoredObject, ctx) {
    const spec = struct(pod, 'spec');
    admitPriority(pod, spec, ctx);
    defaultToleration(spec, 'node.kubernetes.io/not-ready');
    defaultToleration(spec, 'node.kubernetes.io/unreachable');
    pod['status'] = { phase: 'Pending', qosClass: podQosClass(spec) };
  },
  prepareForUpdate(pod) {
    // The admission plugin runs on updates too: a default toleration taken out comes back (at the end).
    const spec = struct(pod, 'spec');
    defaultToleration(spec, 'node.kubernetes.io/not-ready');
    defaultToleration(spec, 'node.kubernetes.io/unreachable');
  },
  validate(pod, old) {
    const errs = validatePodSpec(isPlainObject(pod['spec']) ? pod['spec'] : undefined, 'spec');
    if (errs.length > 0 || !old || !isPlainObject(pod['spec']) || !isPlainObject(old['spec'])) return errs;
    // The real server appends a diff of the two specs in Go's notation; the first line is what says what is wrong.
    return changesImmutableFields(pod['spec'], old['spec']) ? [forbiddenField('spec', MUTABLE_FIELDS)] : [];
  },
};
