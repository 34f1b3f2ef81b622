/**
 * @multicluster-runtime/envtest: Kubernetes API servers for tests. The root is the in-memory tier: a server that speaks
 * the real protocol over HTTPS, so client-node, kubectl and any Kubernetes client work against it. The other tiers
 * have their own entry points, so a test imports only what it runs: `/real` (kube-apiserver and etcd from
 * KUBEBUILDER_ASSETS), `/kcp` (a fake kcp) and `/milo` (a fake Milo).
 */
export type { ApiServer, ApiServerFaults, ApiServerStats } from './api-server.js';
export { startApiServer } from './api-server.js';
export type { ActionRequest, ActionResult, ActionSubresource, ApiServerOptions, MountedPath, PathMount } from './server/options.js';
export type { Fleet } from './fleet.js';
export { startFleet } from './fleet.js';
export type { KubeconfigOptions } from './kubeconfig.js';
export type { UserInfo } from './auth/authenticator.js';
export type { TokenOptions, TokenUser } from './auth/token-user.js';
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
export { AdminRequestError } from './admin-client.js';
