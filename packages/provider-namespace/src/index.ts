/**
 * @multicluster-runtime/provider-namespace: the namespaces of one cluster as a fleet, each a member that reads and
 * writes only its namespace.
 */
export type { NamespaceProviderOptions } from './provider.js';
export { NamespaceProvider } from './provider.js';
export { NamespacedCluster } from './namespaced-cluster.js';
export { NamespaceScopeError } from './errors.js';
