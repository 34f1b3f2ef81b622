/**
 * Errors of the Cluster API provider. Problems with one cluster (not ready, a missing or hostile kubeconfig Secret,
 * an unreachable API server) are never thrown: they become that cluster's status. What is thrown is a misconfigured
 * provider, which retrying cannot fix.
 */
export class CapiProviderConfigError extends Error {
  override readonly name = 'CapiProviderConfigError';
  readonly retryable = false;
}
