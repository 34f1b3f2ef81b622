/**
 * @multicluster-runtime/provider-kcp-apiexport: every kcp logical cluster bound to an APIExport is a fleet member,
 * watched through the export's virtual workspace with one shared cache per shard.
 */
export type { ApiExportProviderOptions } from './provider.js';
export { API_EXPORT_ENDPOINT_SLICE, ApiExportProvider } from './provider.js';
export type { KcpFleetSource } from './provider.js';
export type { InitializingWorkspacesProviderOptions } from './initializing-workspaces.js';
export { InitializingWorkspacesProvider, LOGICAL_CLUSTER, WORKSPACE_TYPE } from './initializing-workspaces.js';
export { API_BINDING, bindingIsReady } from './endpoint.js';
export { CLUSTER_ANNOTATION, CLUSTER_FIELD, PATH_ANNOTATION, clusterObjectKey, logicalClusterOf } from './annotations.js';
export { LogicalCluster } from './logical-cluster.js';
export { ScopedCache } from './scoped-cache.js';
export { ApiExportProviderConfigError, ApiExportProviderError, EndpointStartError } from './errors.js';
