/**
 * Checks that a new cluster answers before it is engaged, and says what went wrong when it does not. Engaging an
 * unreachable cluster would only leave controllers backing off against it; a cluster whose cache has no informers
 * yet "syncs" at once, so the cache-sync wait alone cannot tell.
 */
import { deadline } from '../../signal/deadline.js';
import type { Cluster } from '../../cluster/types.js';
import type { ClusterState } from './cluster-status.js';

/** The probe got no answer in time. */
export class ProbeTimeoutError extends Error {
  override readonly name = 'ProbeTimeoutError';
  readonly retryable = true;
  constructor(timeoutMs: number) {
    super(`the API server did not answer discovery within ${timeoutMs} ms`);
  }
}

/**
 * Resolves once the API server answered discovery for the core group with the cluster's credentials (which also
 * warms the REST mapper for the controllers). Rejects with the client's error, or ProbeTimeoutError.
 */
export async function probeCluster(cluster: Cluster, signal: AbortSignal, timeoutMs: number): Promise<void> {
  const bound = deadline(signal, timeoutMs, () => new ProbeTimeoutError(timeoutMs));
  try {
    await cluster.restMapper.mapping({ apiVersion: 'v1', kind: 'Namespace' }, { signal: bound.signal });
  } catch (err) {
    if (bound.timedOut) throw bound.signal.reason;
    throw err;
  } finally {
    bound.dispose();
  }
}

/**
 * How a failure to connect or engage is reported and whether it is retried (see {@link classifyFailure}).
 */
export interface FailureVerdict {
  readonly state: Extract<ClusterState, 'unreachable' | 'unauthorized' | 'failed'>;
  readonly reason: string;
  /** Whether trying again later (with backoff) can help. */
  readonly retry: boolean;
}

/** Classifies why connecting to or engaging a cluster failed. Matches errors by shape, so duplicated modules work. */
export function classifyFailure(err: unknown): FailureVerdict {
  const e = (typeof err === 'object' && err !== null ? err : {}) as { name?: unknown; code?: unknown; retryable?: unknown };
  const reason = describeError(err);
  if (e.name === 'ApiError' && (e.code === 401 || e.code === 403)) {
    return { state: 'unauthorized', reason: `the API server refused the credentials: ${reason}`, retry: true };
  }
  if (e.name === 'TransportError' || e.name === 'ProbeTimeoutError' || e.name === 'CredentialError') {
    return { state: 'unreachable', reason, retry: true };
  }
  if (e.name === 'ApiError') return { state: e.retryable === true ? 'unreachable' : 'failed', reason, retry: true };
  return { state: 'failed', reason, retry: e.retryable !== false };
}

/** A one-line description of an error. Client errors name method, path and status, never headers or bodies. */
export function describeError(err: unknown): string {
  const text = err instanceof Error ? `${err.message}` : String(err);
  const line = text.split('\n')[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** Closes the connection pool of a cluster that was probed but never started (or already stopped). */
export async function closeUnstarted(cluster: Cluster): Promise<void> {
  const close = (cluster as Partial<{ close(): Promise<void> }>).close;
  if (typeof close !== 'function') return;
  try {
    await close.call(cluster);
  } catch {
    // Closing a pool that failed to connect can fail too; there is nothing left to release.
  }
}
