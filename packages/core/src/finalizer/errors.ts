/** Errors of the finalizer helpers and registry: programming mistakes, found before anything is written. */

export class FinalizerError extends Error {
  override readonly name: string = 'FinalizerError';
  readonly retryable: boolean = false;
}

/** A finalizer name the API server would reject (it must be a qualified name such as `example.com/cleanup`). */
export class InvalidFinalizerError extends FinalizerError {
  override readonly name = 'InvalidFinalizerError';
  constructor(
    readonly finalizer: string,
    reason: string,
  ) {
    super(`invalid finalizer ${JSON.stringify(finalizer)}: ${reason}`);
  }
}

/** `register` was called twice for one finalizer name. */
export class FinalizerAlreadyRegisteredError extends FinalizerError {
  override readonly name = 'FinalizerAlreadyRegisteredError';
  constructor(readonly finalizer: string) {
    super(`finalizer ${JSON.stringify(finalizer)} is already registered`);
  }
}
