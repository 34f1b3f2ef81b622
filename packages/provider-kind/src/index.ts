/** @multicluster-runtime/provider-kind: kind clusters as a multi-cluster fleet, discovered through the kind CLI. */
export type { KindPollStatus, KindProviderOptions } from './provider.js';
export { KindProvider } from './provider.js';
export type { KindCliOptions } from './kind-cli.js';
export { KindCli } from './kind-cli.js';
export { KindCliError, KindCliFailedError, KindCliNotFoundError, KindCliOutputError, KindCliTimeoutError } from './errors.js';
