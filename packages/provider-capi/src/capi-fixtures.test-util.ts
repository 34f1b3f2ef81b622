/** Test fixtures: a minimal Cluster API `Cluster` CRD and Cluster objects, as CAPI itself would write them. */
import type { Client, KubeObject } from '@multicluster-runtime/core';

const openSchema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };

export const capiClusterCrd: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'clusters.cluster.x-k8s.io' },
  spec: {
    group: 'cluster.x-k8s.io',
    scope: 'Namespaced',
    names: { kind: 'Cluster', plural: 'clusters', singular: 'cluster', listKind: 'ClusterList' },
    versions: [
      { name: 'v1beta2', served: true, storage: true, schema: openSchema, subresources: { status: {} } },
      { name: 'v1beta1', served: true, storage: false, schema: openSchema, subresources: { status: {} } },
    ],
  },
};

export function capiCluster(namespace: string, name: string, apiVersion = 'cluster.x-k8s.io/v1beta2'): KubeObject {
  return { apiVersion, kind: 'Cluster', metadata: { namespace, name }, spec: { paused: false } };
}

/** Marks the control plane initialized the way the given API version reports it. */
export async function markInitialized(client: Client, cluster: KubeObject): Promise<void> {
  const status =
    cluster.apiVersion === 'cluster.x-k8s.io/v1beta1' ? { controlPlaneReady: true } : { initialization: { controlPlaneInitialized: true } };
  const current = await client.get(
    { apiVersion: cluster.apiVersion!, kind: 'Cluster' },
    {
      namespace: cluster.metadata.namespace!,
      name: cluster.metadata.name!,
    },
  );
  await client.updateStatus({ ...current, status });
}

export function kubeconfigSecret(namespace: string, clusterName: string, kubeconfig: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { namespace, name: `${clusterName}-kubeconfig`, labels: { 'cluster.x-k8s.io/cluster-name': clusterName } },
    type: 'cluster.x-k8s.io/secret',
    data: { value: Buffer.from(kubeconfig).toString('base64') },
  };
}
