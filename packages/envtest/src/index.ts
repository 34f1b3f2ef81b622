/**
 * @multicluster-runtime/envtest: Kubernetes API servers for tests. The in-memory server speaks the real protocol over
 * HTTPS, so client-node, kubectl and any Kubernetes client work against it.
 */
export type { ApiServer, ApiServerFaults, ApiServerStats } from './server/api-server.js';
export { startApiServer } from './server/api-server.js';
export type { ApiServerOptions, MountedPath, PathMount } from './server/options.js';
export type { Fleet } from './fleet.js';
export { startFleet } from './fleet.js';
export type { KubeconfigOptions } from './kubeconfig.js';
export type { UserInfo } from './auth/authenticator.js';
export type { AuthorizationAttributes, Authorizer } from './auth/authorizer.js';
export type {
  CertificateAuthority,
  CertificateAuthorityOptions,
  ClientCertificateOptions,
  KeyPairPem,
  ServerCertificateOptions,
} from './tls/certificate-authority.js';
export { createCertificateAuthority, issueClientCertificate, issueServerCertificate } from './tls/certificate-authority.js';
export { KCP_CLUSTER_ANNOTATION } from './cluster-path.js';
export { CertificateError, EnvtestError, InvalidOptionsError, ServerListenError, ServerStateError } from './errors.js';
// The real tier: etcd + kube-apiserver from KUBEBUILDER_ASSETS (tools/kube-apiserver/build.sh builds them).
export type { TestEnvironment, TestEnvironmentOptions } from './real/test-environment.js';
export { startTestEnvironment } from './real/test-environment.js';
export type { AuthorizationMode } from './real/kube-apiserver.js';
export type { StaticToken } from './real/static-tokens.js';
export type { TokenUser } from './real/token-webhook.js';
export type { ControlPlaneAssets } from './real/assets.js';
export { assetsDirFromEnv, resolveAssets } from './real/assets.js';
export {
  AssetsNotFoundError,
  CrdInstallError,
  ProcessExitedError,
  ProcessStopError,
  ReadinessTimeoutError,
  TestEnvironmentError,
  TestEnvironmentOptionsError,
  TestEnvironmentStoppedError,
} from './real/errors.js';
// A fake Milo: its CRDs, and fixtures for Projects and ProjectControlPlanes.
export type { ProjectFixtureOptions, ReadinessCondition } from './milo/milo-fixtures.js';
export { MiloFixtures } from './milo/milo-fixtures.js';
export { MiloRequestError } from './milo/errors.js';
export { MILO_INFRA_GROUP, MILO_PROJECT_GROUP, MILO_VERSION, projectControlPlaneCrd, projectCrd } from './milo/crds.js';
export type { MiloServer, MiloServerOptions } from './milo/milo-server.js';
export { startMiloServer } from './milo/milo-server.js';
export { projectControlPlaneMount } from './milo/control-plane-mount.js';
// A fake kcp: workspaces on shards, the apis.kcp.io API, a binding controller and the APIExport virtual workspace.
export type { BindOptions, CreateExportOptions, KcpServer, KcpServerOptions } from './kcp/kcp-server.js';
export { startKcpServer } from './kcp/kcp-server.js';
export type { Workspace as KcpWorkspace } from './kcp/workspaces.js';
export { logicalClusterNameOf } from './kcp/workspaces.js';
export { KCP_APIS_GROUP, KCP_PATH_ANNOTATION, kcpCrds } from './kcp/crds.js';
export { KcpFixtureError, KcpRequestError, KcpTimeoutError } from './kcp/errors.js';
export { AdminRequestError } from './admin-client.js';
