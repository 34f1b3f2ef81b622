/**
 * The Gardener kinds a fake garden serves, as CustomResourceDefinitions: `Shoot` (core.gardener.cloud/v1beta1, in
 * project namespaces `garden-<project>`) for the garden topology, and the extensions `Cluster`
 * (extensions.gardener.cloud/v1alpha1, cluster-scoped, named after the shoot's technical ID) for the seed topology.
 * Gardener serves Shoots from its own aggregated API server; to a client the paths, scope and subresources are the
 * same. Schemas stay open: the fake stores what tests write and validates none of Gardener's own fields.
 */

const openSchema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };

/** Group and version of Gardener's Shoot. */
export const GARDENER_CORE_API_VERSION = 'core.gardener.cloud/v1beta1';
/** Group and version of the extensions Cluster of the seed topology. */
export const GARDENER_EXTENSIONS_API_VERSION = 'extensions.gardener.cloud/v1alpha1';

/** The CRD standing in for Gardener's Shoot: namespaced, with a status subresource. */
export const shootCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'shoots.core.gardener.cloud' },
  spec: {
    group: 'core.gardener.cloud',
    scope: 'Namespaced',
    names: { kind: 'Shoot', plural: 'shoots', singular: 'shoot', listKind: 'ShootList' },
    versions: [{ name: 'v1beta1', served: true, storage: true, schema: openSchema, subresources: { status: {} } }],
  },
};

/** The CRD of the extensions Cluster a seed holds per shoot control plane: cluster-scoped, no status. */
export const extensionsClusterCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'clusters.extensions.gardener.cloud' },
  spec: {
    group: 'extensions.gardener.cloud',
    scope: 'Cluster',
    names: { kind: 'Cluster', plural: 'clusters', singular: 'cluster', listKind: 'ClusterList' },
    versions: [{ name: 'v1alpha1', served: true, storage: true, schema: openSchema }],
  },
};
