/** Errors of leader election. */

export class LeaderElectionError extends Error {
  override readonly name: string = 'LeaderElectionError';
  /** True if campaigning again later can succeed. */
  readonly retryable: boolean = true;
}

/** The timings or Lease coordinates are unusable; fix the options. */
export class LeaderElectionConfigError extends LeaderElectionError {
  override readonly name = 'LeaderElectionConfigError';
  override readonly retryable = false;
}

/**
 * This replica could not renew its Lease within the renew deadline, or saw another holder: it is no longer the
 * leader and must stop leader-only work at once (controller-runtime exits the process here).
 */
export class LeaderElectionLostError extends LeaderElectionError {
  override readonly name = 'LeaderElectionLostError';
  constructor(
    readonly lease: string,
    readonly identity: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`lost leadership of Lease ${lease} as ${JSON.stringify(identity)}: ${reason}`, options);
  }
}
