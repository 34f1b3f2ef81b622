/** @multicluster-runtime/provider-gardener: Gardener shoots as a multicluster-runtime fleet. */
export type { GardenerProviderOptions } from './provider.js';
export { GardenerProvider, seedClusterKind, shootClusterName, shootKind } from './provider.js';
export type { ShootObject, ShootReadiness, ShootReadinessCheck } from './readiness.js';
export { shootReadiness } from './readiness.js';
