/**
 * @multicluster-runtime/envtest/kcp: a fake kcp on the in-memory server. Workspaces on shards, the apis.kcp.io API,
 * a binding controller and the APIExport virtual workspace, enough to run kcp providers against in tests.
 */
export type { BindOptions, CreateExportOptions, CreateWorkspaceOptions, GroupResource, KcpServer, KcpServerOptions } from './kcp-server.js';
export { startKcpServer } from './kcp-server.js';
export type { Workspace as KcpWorkspace } from './workspaces.js';
export { logicalClusterNameOf } from './workspaces.js';
export { KCP_APIS_GROUP, KCP_PATH_ANNOTATION, kcpCrds } from './crds.js';
export { KCP_CLUSTER_ANNOTATION } from '../cluster-path.js';
export { KcpFixtureError, KcpRequestError, KcpTimeoutError } from './errors.js';
