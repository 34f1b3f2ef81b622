/**
 * @multicluster-runtime/provider-multi: compose named providers into one fleet whose clusters are
 * `"<provider>#<cluster>"`.
 */
export type { MultiProviderOptions } from './multi-provider.js';
export { MultiProvider } from './multi-provider.js';
export { MultiProviderError, MultiProviderStoppedError, ProviderNameError, ProviderRemovedError } from './errors.js';
