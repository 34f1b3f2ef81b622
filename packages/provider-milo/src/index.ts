/** @multicluster-runtime/provider-milo: Milo project control planes as a multicluster-runtime fleet. */
export type { MiloProviderOptions } from './provider.js';
export { MiloProvider } from './provider.js';
export type { MiloMode } from './resources.js';
export { conditionIsTrue, projectControlPlaneKind, projectKind } from './resources.js';
export { defaultInternalAddress, projectControlPlaneUrl } from './endpoint.js';
