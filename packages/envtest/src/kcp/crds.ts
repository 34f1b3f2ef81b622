/**
 * The kcp CustomResourceDefinitions the fake kcp installs in every workspace: apis.kcp.io APIResourceSchema, APIExport,
 * APIBinding (v1alpha1 and v1alpha2, stored as v1alpha1 without conversion: the controller reads both shapes) and
 * APIExportEndpointSlice; tenancy.kcp.io WorkspaceType; core.kcp.io LogicalCluster (the singleton `cluster` of each
 * workspace). Schemas stay open: the fake stores what tests write and reads only the fields it needs.
 */

export const KCP_APIS_GROUP = 'apis.kcp.io';
export const KCP_TENANCY_GROUP = 'tenancy.kcp.io';
export const KCP_CORE_GROUP = 'core.kcp.io';
/** The annotation kcp sets on APIBindings (and LogicalClusters) with the workspace path, e.g. `root:org:ws`. */
export const KCP_PATH_ANNOTATION = 'kcp.io/path';

const openSchema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };

function crd(kind: string, plural: string, versions: string[], group = KCP_APIS_GROUP): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Cluster',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: versions.map((name, i) => ({ name, served: true, storage: i === 0, schema: openSchema, subresources: { status: {} } })),
    },
  };
}

/** The kcp API types the fake kcp serves (APIExport, APIBinding, APIExportEndpointSlice, …) as CRDs. */
export const kcpCrds: readonly Record<string, unknown>[] = [
  crd('APIResourceSchema', 'apiresourceschemas', ['v1alpha1']),
  crd('APIExport', 'apiexports', ['v1alpha1', 'v1alpha2']),
  crd('APIBinding', 'apibindings', ['v1alpha1', 'v1alpha2']),
  crd('APIExportEndpointSlice', 'apiexportendpointslices', ['v1alpha1']),
  crd('WorkspaceType', 'workspacetypes', ['v1alpha1'], KCP_TENANCY_GROUP),
  crd('LogicalCluster', 'logicalclusters', ['v1alpha1'], KCP_CORE_GROUP),
];
