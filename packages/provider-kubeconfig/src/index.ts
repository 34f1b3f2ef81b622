/**
 * @multicluster-runtime/provider-kubeconfig: fleets described by kubeconfig Secrets on a host cluster or by kubeconfig
 * files on disk. Every kubeconfig is treated as untrusted input (see core's `loadUntrustedKubeconfig`).
 */
export type { KubeconfigSecretProviderOptions } from './secret-provider.js';
export type { SecretWatchMode } from './secret-source.js';
export { DEFAULT_KUBECONFIG_SECRET_KEY, DEFAULT_KUBECONFIG_SECRET_LABEL, KubeconfigSecretProvider } from './secret-provider.js';
export type { KubeconfigFileProviderOptions, KubeconfigFileStatus } from './file-provider.js';
export { KubeconfigFileProvider } from './file-provider.js';
// Connection options, statuses and ProviderConfigError come from core's ClusterEngager, shared by every provider.
