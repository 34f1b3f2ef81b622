/**
 * When a Cluster API cluster is ready to be engaged: once its control plane has been initialized, which is when CAPI
 * writes a working `<name>-kubeconfig` Secret. v1beta2 reports it in `status.initialization`, v1beta1 in
 * `status.controlPlaneReady`; both also carry a `ControlPlaneInitialized` condition.
 */
import type { KubeObject } from '@multicluster-runtime/core';

/**
 * The Cluster API versions the provider can watch.
 */
export type CapiApiVersion = 'cluster.x-k8s.io/v1beta2' | 'cluster.x-k8s.io/v1beta1';

/** Decides whether a Cluster object should be engaged. */
export type ReadinessCheck = (cluster: KubeObject) => boolean;

interface Condition {
  type?: string;
  status?: string;
}

function conditionTrue(conditions: unknown, type: string): boolean {
  return Array.isArray(conditions) && conditions.some((c: Condition) => c?.type === type && c?.status === 'True');
}

/** The default check: the control plane is initialized. */
export const controlPlaneInitialized: ReadinessCheck = (cluster) => {
  const status = (cluster['status'] ?? {}) as Record<string, unknown>;
  const initialization = (status['initialization'] ?? {}) as Record<string, unknown>;
  if (initialization['controlPlaneInitialized'] === true) return true;
  if (status['controlPlaneReady'] === true) return true;
  if (conditionTrue(status['conditions'], 'ControlPlaneInitialized')) return true;
  const v1beta2 = (status['v1beta2'] ?? {}) as Record<string, unknown>;
  return conditionTrue(v1beta2['conditions'], 'ControlPlaneInitialized');
};
