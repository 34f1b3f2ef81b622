/**
 * @multicluster-runtime/envtest/real: the real tier, etcd plus kube-apiserver from KUBEBUILDER_ASSETS
 * (tools/kube-apiserver/build.sh builds them from the upstream Go modules), one private control plane per call.
 */
export type { TestEnvironment, TestEnvironmentOptions } from './test-environment.js';
export { startTestEnvironment } from './test-environment.js';
export type { AuthorizationMode } from './kube-apiserver.js';
export type { StaticToken } from './static-tokens.js';
export type { TokenOptions, TokenUser } from '../auth/token-user.js';
export type { ControlPlaneAssets } from './assets.js';
export { assetsDirFromEnv, resolveAssets } from './assets.js';
export {
  AssetsNotFoundError,
  CrdInstallError,
  ProcessExitedError,
  ProcessStopError,
  ReadinessTimeoutError,
  TestEnvironmentError,
  TestEnvironmentOptionsError,
  TestEnvironmentStoppedError,
} from './errors.js';
