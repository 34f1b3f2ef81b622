/**
 * Errors of event sources. `retryable` says whether starting the source again later can succeed (an API server that
 * was unreachable may answer next time; a source started twice stays a programming error).
 */
import type { ClusterName } from '../fleet/cluster-name.js';

/** An error of a source, and whether retrying can help. */
export class SourceError extends Error {
  override readonly name: string = 'SourceError';
  constructor(
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** `start` was called on a per-cluster source that is already running (a source serves one engagement). */
export class SourceAlreadyStartedError extends SourceError {
  override readonly name = 'SourceAlreadyStartedError';
  constructor(readonly description: string) {
    super(`source ${description} was already started; create a new one with forCluster()`, false);
  }
}

/**
 * The cluster's cache could not provide an informer for the source's kind (discovery failed, kind unknown, …). The
 * Kind source logs it and keeps retrying with backoff.
 */
export class SourceStartFailedError extends SourceError {
  override readonly name = 'SourceStartFailedError';
  constructor(
    readonly description: string,
    readonly clusterName: ClusterName,
    cause: unknown,
  ) {
    super(`starting source ${description} on cluster ${JSON.stringify(clusterName)} failed: ${describe(cause)}`, true, { cause });
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A channel source's buffer is full: it was not started yet (or was stopped) and events piled up. */
export class ChannelFullError extends SourceError {
  override readonly name = 'ChannelFullError';
  constructor(readonly capacity: number) {
    super(`channel source buffer is full (${capacity} events); start the controller that watches it`, true);
  }
}
