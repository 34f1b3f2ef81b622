/** Errors of the kcp APIExport provider: what failed and whether trying again can help. */

export class ApiExportProviderError extends Error {
  /** Whether the same operation may succeed later (the provider retries these itself). */
  readonly retryable: boolean;
  constructor(message: string, options?: { cause?: unknown; retryable?: boolean }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.retryable = options?.retryable ?? false;
  }
}

/** The options cannot work (no slice name, a kubeconfig without a cluster). Not retryable. */
export class ApiExportProviderConfigError extends ApiExportProviderError {}

/** A virtual-workspace endpoint could not be started (e.g. its discovery is not served yet). Retried with backoff. */
export class EndpointStartError extends ApiExportProviderError {
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`cannot start the virtual workspace endpoint ${url}: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
      retryable: true,
    });
  }
}
