/** @multicluster-runtime/provider-capi: Cluster API workload clusters as a multicluster-runtime fleet. */
export type { CapiProviderOptions } from './provider.js';
export { CapiProvider, capiClusterName } from './provider.js';
export type { CapiApiVersion, ReadinessCheck } from './readiness.js';
export { controlPlaneInitialized } from './readiness.js';
