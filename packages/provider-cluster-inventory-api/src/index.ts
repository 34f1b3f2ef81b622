/** @multicluster-runtime/provider-cluster-inventory-api: SIG-Multicluster ClusterProfiles as a multicluster-runtime fleet. */
export type { ClusterProfileProviderOptions, KubeconfigSecretStrategy } from './provider.js';
export { ClusterProfileProvider, consumerLabel, kubeconfigSecretKey, profileLabel } from './provider.js';
export type { AccessConfig, AccessExecConfig, AccessProviderConfig, ProfileArgsPolicy, ProfileEnvPolicy } from './access-config.js';
export { checkAccessConfig, loadAccessConfigFile } from './access-config.js';
export { additionalArgsExtension, additionalEnvsExtension, execExtension } from './access.js';
export type { ClusterProfile, ProfileAccessProvider, ProfileCluster, ReadinessCheck } from './cluster-profile.js';
export { clusterProfileKind, clusterProfileName, controlPlaneHealthy, controlPlaneHealthyCondition } from './cluster-profile.js';
