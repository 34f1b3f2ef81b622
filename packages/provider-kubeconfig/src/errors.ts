/**
 * Errors of the kubeconfig providers. Problems with one cluster's kubeconfig are never thrown: they become that
 * cluster's status (see cluster-status.ts). What is thrown is a misconfigured provider, which retrying cannot fix.
 */

export class KubeconfigProviderError extends Error {
  override readonly name: string = 'KubeconfigProviderError';
  readonly retryable: boolean = false;
}

/** The provider's options are unusable (a missing namespace, an empty path list, no host cluster, …). */
export class ProviderConfigError extends KubeconfigProviderError {
  override readonly name = 'ProviderConfigError';
  constructor(provider: string, problem: string) {
    super(`${provider}: ${problem}`);
  }
}
