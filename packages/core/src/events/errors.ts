/** Errors of event recording: only programming mistakes throw; API trouble is logged, counted and dropped. */

export class EventError extends Error {
  override readonly name: string = 'EventError';
  readonly retryable: boolean = false;
}

/** An event or recorder that the API server would reject, or that cannot name its object. */
export class InvalidEventError extends EventError {
  override readonly name = 'InvalidEventError';
}
