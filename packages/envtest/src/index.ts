/**
 * @multicluster-runtime/envtest: Kubernetes API servers for tests. The in-memory server speaks the real protocol over
 * HTTPS, so client-node, kubectl and any Kubernetes client work against it.
 */
export type { ApiServer, ApiServerFaults, ApiServerStats } from './server/api-server.js';
export { startApiServer } from './server/api-server.js';
export type { ApiServerOptions } from './server/options.js';
export type { Fleet } from './fleet.js';
export { startFleet } from './fleet.js';
export type { KubeconfigOptions } from './kubeconfig.js';
export type { UserInfo } from './auth/authenticator.js';
export type {
  CertificateAuthority, CertificateAuthorityOptions, ClientCertificateOptions, KeyPairPem, ServerCertificateOptions,
} from './tls/certificate-authority.js';
export { createCertificateAuthority, issueClientCertificate, issueServerCertificate } from './tls/certificate-authority.js';
export { CertificateError, EnvtestError, InvalidOptionsError, ServerListenError, ServerStateError } from './errors.js';
