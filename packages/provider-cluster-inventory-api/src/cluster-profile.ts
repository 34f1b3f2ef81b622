/**
 * The parts of a ClusterProfile (`multicluster.x-k8s.io/v1alpha1`, sigs.k8s.io/cluster-inventory-api) this provider
 * reads, typed as they arrive from the hub: every field may be missing or of the wrong type, since a profile is
 * written by whoever manages the inventory.
 */
import { isStatusConditionTrue, type ClusterName, type ConditionLike, type KubeObject, type ObjectKind } from '@multicluster-runtime/core';

/**
 * The kind the provider watches on the hub.
 */
export const clusterProfileKind: ObjectKind = { apiVersion: 'multicluster.x-k8s.io/v1alpha1', kind: 'ClusterProfile' };

/** The condition a cluster manager sets when the member's control plane is healthy. */
export const controlPlaneHealthyCondition = 'ControlPlaneHealthy';

/** A kubeconfig `cluster` entry (client-go's clientcmd v1 Cluster), as a profile publishes it. */
export interface ProfileCluster {
  server?: unknown;
  'certificate-authority-data'?: unknown;
  'tls-server-name'?: unknown;
  'insecure-skip-tls-verify'?: unknown;
  'proxy-url'?: unknown;
  extensions?: unknown;
}

/** One way to reach the member: a provider name the operator may have configured, and the cluster to reach. */
export interface ProfileAccessProvider {
  name?: unknown;
  cluster?: ProfileCluster;
}

/**
 * A ClusterProfile as read from the hub (only the fields this provider uses are typed).
 */
export interface ClusterProfile extends KubeObject {
  spec?: { displayName?: string; clusterManager?: { name?: string } };
  status?: {
    conditions?: ConditionLike[];
    accessProviders?: ProfileAccessProvider[];
    /** Deprecated alias of accessProviders; on a name clash accessProviders wins. */
    credentialProviders?: ProfileAccessProvider[];
  };
}

/** Whether a profile's member should be engaged. */
export type ReadinessCheck = (profile: ClusterProfile) => boolean;

/** The default readiness: the `ControlPlaneHealthy` condition is True. */
export const controlPlaneHealthy: ReadinessCheck = (profile) => {
  const conditions = profile.status?.conditions;
  return Array.isArray(conditions) && isStatusConditionTrue(conditions, controlPlaneHealthyCondition);
};

/** `<namespace>/<name>`: the fleet name of the member a ClusterProfile describes. */
export function clusterProfileName(namespace: string, name: string): ClusterName {
  return `${namespace}/${name}`;
}
