/**
 * What the real server's Go code sets when a built-in object leaves a field out (the SetDefaults_* functions of the
 * pinned version's API packages), for the kinds controllers manage most: the apps workloads, pod templates and their
 * containers, Pods, Services, Jobs and CronJobs. Without them a controller that writes a whole spec sees no change in
 * memory and a change on every reconcile on a real cluster. Keyed by the definition a function is registered for;
 * builtin-decode.ts calls it once that struct is decoded (nested structs first, as Go's generated code does). The
 * conformance suite compares defaulted objects with the real server's.
 */
import { isPlainObject } from './patch/merge-patch.js';

type Obj = Record<string, unknown>;
type Defaulter = (obj: Obj) => void;

/** The struct under `key`, made when absent (Go: a nil pointer the defaulter allocates). Also used by kinds' rules. */
export function struct(obj: Obj, key: string): Obj {
  const value = obj[key];
  if (isPlainObject(value)) return value;
  const made: Obj = {};
  obj[key] = made;
  return made;
}

function setAbsent(obj: Obj, key: string, value: unknown): void {
  if (obj[key] === undefined || obj[key] === '') obj[key] = value;
}

/** A container's pull policy follows its image's tag: `latest` (or none, which means latest) pulls Always. */
function pullPolicyFor(image: unknown): string {
  if (typeof image !== 'string') return 'IfNotPresent';
  const [named = '', digest] = image.split('@');
  const slash = named.lastIndexOf('/');
  const colon = named.lastIndexOf(':');
  const tag = colon > slash ? named.slice(colon + 1) : digest ? '' : 'latest';
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainer(c: Obj): void {
  setAbsent(c, 'imagePullPolicy', pullPolicyFor(c['image']));
  setAbsent(c, 'terminationMessagePath', '/dev/termination-log');
  setAbsent(c, 'terminationMessagePolicy', 'File');
}

/** A Pod's containers request what they limit unless they say otherwise. */
function requestsFromLimits(containers: unknown): void {
  if (!Array.isArray(containers)) return;
  for (const c of containers) {
    if (!isPlainObject(c) || !isPlainObject(c['resources'])) continue;
    const resources = c['resources'];
    if (!isPlainObject(resources['limits'])) continue;
    const requests = struct(resources, 'requests');
    for (const [name, quantity] of Object.entries(resources['limits'])) if (requests[name] === undefined) requests[name] = quantity;
  }
}

function defaultPort(p: unknown): void {
  if (!isPlainObject(p)) return;
  setAbsent(p, 'protocol', 'TCP');
  if (p['targetPort'] === undefined || p['targetPort'] === 0 || p['targetPort'] === '') p['targetPort'] = p['port'];
}

export const GO_DEFAULTERS: Readonly<Record<string, Defaulter>> = {
  'api.core.v1.Container': defaultContainer,
  'api.scheduling.v1.PriorityClass': (priorityClass) => setAbsent(priorityClass, 'preemptionPolicy', 'PreemptLowerPriority'),
  'api.core.v1.PodSpec': (spec) => {
    setAbsent(spec, 'dnsPolicy', 'ClusterFirst');
    setAbsent(spec, 'restartPolicy', 'Always');
    struct(spec, 'securityContext');
    setAbsent(spec, 'terminationGracePeriodSeconds', 30);
    setAbsent(spec, 'schedulerName', 'default-scheduler');
  },
  'api.core.v1.Pod': (pod) => {
    const spec = struct(pod, 'spec');
    requestsFromLimits(spec['containers']);
    requestsFromLimits(spec['initContainers']);
    setAbsent(spec, 'enableServiceLinks', true);
  },
  'api.core.v1.Service': (service) => {
    const spec = struct(service, 'spec');
    setAbsent(spec, 'sessionAffinity', 'None');
    if (spec['sessionAffinity'] === 'None') delete spec['sessionAffinityConfig'];
    else if (spec['sessionAffinity'] === 'ClientIP')
      setAbsent(struct(struct(spec, 'sessionAffinityConfig'), 'clientIP'), 'timeoutSeconds', 10800);
    setAbsent(spec, 'type', 'ClusterIP');
    if (Array.isArray(spec['ports'])) spec['ports'].forEach(defaultPort);
    const type = spec['type'];
    const external =
      type === 'NodePort' ||
      type === 'LoadBalancer' ||
      (type === 'ClusterIP' && Array.isArray(spec['externalIPs']) && spec['externalIPs'].length > 0);
    if (external) setAbsent(spec, 'externalTrafficPolicy', 'Cluster');
    if (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP') setAbsent(spec, 'internalTrafficPolicy', 'Cluster');
    if (type === 'LoadBalancer') setAbsent(spec, 'allocateLoadBalancerNodePorts', true);
  },
  'api.apps.v1.Deployment': (deployment) => {
    const spec = struct(deployment, 'spec');
    setAbsent(spec, 'replicas', 1);
    const strategy = struct(spec, 'strategy');
    setAbsent(strategy, 'type', 'RollingUpdate');
    if (strategy['type'] === 'RollingUpdate') {
      const rolling = struct(strategy, 'rollingUpdate');
      setAbsent(rolling, 'maxUnavailable', '25%');
      setAbsent(rolling, 'maxSurge', '25%');
    }
    setAbsent(spec, 'revisionHistoryLimit', 10);
    setAbsent(spec, 'progressDeadlineSeconds', 600);
  },
  'api.apps.v1.ReplicaSet': (replicaSet) => setAbsent(struct(replicaSet, 'spec'), 'replicas', 1),
  'api.apps.v1.StatefulSet': (statefulSet) => {
    const spec = struct(statefulSet, 'spec');
    setAbsent(spec, 'podManagementPolicy', 'OrderedReady');
    const strategy = struct(spec, 'updateStrategy');
    if (!strategy['type']) {
      strategy['type'] = 'RollingUpdate';
      struct(strategy, 'rollingUpdate');
    }
    if (strategy['type'] === 'RollingUpdate' && isPlainObject(strategy['rollingUpdate'])) {
      setAbsent(strategy['rollingUpdate'], 'partition', 0);
      setAbsent(strategy['rollingUpdate'], 'maxUnavailable', 1);
    }
    const retention = struct(spec, 'persistentVolumeClaimRetentionPolicy');
    setAbsent(retention, 'whenDeleted', 'Retain');
    setAbsent(retention, 'whenScaled', 'Retain');
    setAbsent(spec, 'replicas', 1);
    setAbsent(spec, 'revisionHistoryLimit', 10);
  },
  'api.apps.v1.DaemonSet': (daemonSet) => {
    const spec = struct(daemonSet, 'spec');
    const strategy = struct(spec, 'updateStrategy');
    setAbsent(strategy, 'type', 'RollingUpdate');
    if (strategy['type'] === 'RollingUpdate') {
      const rolling = struct(strategy, 'rollingUpdate');
      setAbsent(rolling, 'maxUnavailable', 1);
      setAbsent(rolling, 'maxSurge', 0);
    }
    setAbsent(spec, 'revisionHistoryLimit', 10);
  },
  'api.batch.v1.Job': (job) => {
    const spec = struct(job, 'spec');
    if (spec['completions'] === undefined && spec['parallelism'] === undefined) spec['completions'] = 1;
    setAbsent(spec, 'parallelism', 1);
    setAbsent(spec, 'backoffLimit', spec['backoffLimitPerIndex'] === undefined ? 6 : 2147483647);
    setAbsent(spec, 'completionMode', 'NonIndexed');
    setAbsent(spec, 'suspend', false);
    setAbsent(spec, 'podReplacementPolicy', spec['podFailurePolicy'] === undefined ? 'TerminatingOrFailed' : 'Failed');
    const templateLabels =
      isPlainObject(spec['template']) && isPlainObject(spec['template']['metadata']) ? spec['template']['metadata']['labels'] : undefined;
    const meta = struct(job, 'metadata');
    // The same map, not a copy, as Go assigns it: labels the create strategy adds to the template show on the Job too.
    if (isPlainObject(templateLabels) && !(isPlainObject(meta['labels']) && Object.keys(meta['labels']).length > 0))
      meta['labels'] = templateLabels;
  },
  'api.batch.v1.CronJob': (cronJob) => {
    const spec = struct(cronJob, 'spec');
    setAbsent(spec, 'concurrencyPolicy', 'Allow');
    setAbsent(spec, 'suspend', false);
    setAbsent(spec, 'successfulJobsHistoryLimit', 3);
    setAbsent(spec, 'failedJobsHistoryLimit', 1);
  },
};
