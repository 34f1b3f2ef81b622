/**
 * Errors of the multi provider. `retryable` says whether the same call can succeed later without a change by the
 * caller: none of these can (a name clash or a bad name stays bad).
 */

export class MultiProviderError extends Error {
  override readonly name: string = 'MultiProviderError';
  readonly retryable: boolean = false;
}

/** `add` was given a name that is empty, contains the separator, or is already taken. */
export class ProviderNameError extends MultiProviderError {
  override readonly name = 'ProviderNameError';
  constructor(
    readonly providerName: string,
    problem: string,
  ) {
    super(`provider name ${JSON.stringify(providerName)} ${problem}`);
  }
}

/** The multi provider was stopped; providers can no longer be added to it. */
export class MultiProviderStoppedError extends MultiProviderError {
  override readonly name = 'MultiProviderStoppedError';
  constructor(action: string) {
    super(`cannot ${action}: the multi provider has stopped`);
  }
}

/** A provider was removed (or the multi provider stopped) while one of its clusters was being engaged. */
export class ProviderRemovedError extends MultiProviderError {
  override readonly name = 'ProviderRemovedError';
  constructor(
    readonly providerName: string,
    clusterName: string,
  ) {
    super(`cannot engage cluster ${JSON.stringify(clusterName)}: provider ${JSON.stringify(providerName)} was removed`);
  }
}
