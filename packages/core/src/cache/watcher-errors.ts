/**
 * Why a watcher had to retry. The watcher yields these (it never throws them) and then retries on its own, so every
 * class here is retryable: they exist to be logged, counted and shown in an informer's status.
 */

import { thrownText } from '../log/thrown.js';

/** Base class of everything a watcher reports. `retryable` is always true: the watcher retries by itself. */
export class WatcherError extends Error {
  override readonly name: string = 'WatcherError';
  readonly retryable = true;
  constructor(
    /** What was being watched, e.g. `v1, Kind=ConfigMap`. */
    readonly resource: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${resource}: ${message}${causeText(options?.cause)}`, options);
  }
}

/** A page of the initial list (or of a relist) failed; the same page is retried after a backoff. */
export class InitialListFailed extends WatcherError {
  override readonly name = 'InitialListFailed';
  constructor(resource: string, options: { cause: unknown }) {
    super(resource, 'list failed', options);
  }
}

/** The watch request was refused or could not connect; it is retried from the same resourceVersion. */
export class WatchStartFailed extends WatcherError {
  override readonly name = 'WatchStartFailed';
  constructor(
    resource: string,
    readonly resourceVersion: string,
    options: { cause: unknown },
  ) {
    super(resource, `watch from resourceVersion ${resourceVersion} could not start`, options);
  }
}

/** An open watch stream broke (connection reset, stall, early close); it resumes from the last resourceVersion. */
export class WatchFailed extends WatcherError {
  override readonly name = 'WatchFailed';
  constructor(
    resource: string,
    readonly resourceVersion: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(resource, `watch from resourceVersion ${resourceVersion} failed: ${reason}`, options);
  }
}

/** The `metav1.Status` an ERROR watch event carries. */
export interface WatchStatus {
  code?: number;
  reason?: string;
  message?: string;
  details?: { causes?: Array<{ reason?: string; message?: string }> };
}

/** The server sent an ERROR event (other than 410 Gone) on the watch stream. */
export class WatchErrorEvent extends WatcherError {
  override readonly name = 'WatchErrorEvent';
  constructor(
    resource: string,
    readonly status: WatchStatus,
  ) {
    super(resource, `watch error event: ${status.code ?? '?'} ${status.reason ?? ''} ${status.message ?? ''}`.trimEnd());
  }
}

/**
 * The resourceVersion the watcher resumes from (or a list's continue token) is no longer retained by the server
 * (410 Gone/Expired). The watcher relists from scratch at once and delivers the difference.
 */
export class ResourceGone extends WatcherError {
  override readonly name = 'ResourceGone';
  constructor(resource: string, what: string, options?: { cause?: unknown }) {
    super(resource, `${what} expired (410 Gone), relisting`, options);
  }
}

function causeText(cause: unknown): string {
  return cause === undefined ? '' : `: ${thrownText(cause)}`;
}
