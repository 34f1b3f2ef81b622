/**
 * Whether an engaged cluster still answers. Its informers retry on their own and say nothing, so without a check an
 * outage of a member leaves its status `engaged` and the log silent. Every `intervalMs` one cheap read goes to the API
 * server: any HTTP answer (even 403 or 404) means reachable; a network failure, a timeout or a 401 means not. Only
 * changes are reported.
 */
import type { Cluster } from '../../cluster/types.js';
import { deadline } from '../../signal/deadline.js';
import { sleep } from '../../signal/wait.js';
import type { ClusterHealth } from './cluster-status.js';
import { describeError } from './probe.js';

/**
 * How often, and with what timeout, an engaged cluster's API server is checked.
 */
export interface HealthCheckOptions {
  /** Time between checks of an engaged cluster. Default 30 s. */
  intervalMs?: number;
  /** How long one check may take. Default 5 s. */
  timeoutMs?: number;
}

const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' } as const;

/** Checks `cluster` until `signal` aborts (its disengagement), calling `onChange` when reachability changes. */
export async function watchHealth(
  cluster: Cluster,
  signal: AbortSignal,
  options: HealthCheckOptions,
  onChange: (health: ClusterHealth) => void,
): Promise<void> {
  const intervalMs = options.intervalMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 5_000;
  let reachable = true;
  while (await sleep(intervalMs, signal)) {
    const problem = await check(cluster, signal, timeoutMs);
    if (signal.aborted) return;
    if ((problem === undefined) === reachable) continue;
    reachable = problem === undefined;
    onChange({ reachable, since: new Date(), ...(problem === undefined ? {} : { lastError: problem }) });
  }
}

/** undefined when the API server answered; else why not. */
async function check(cluster: Cluster, signal: AbortSignal, timeoutMs: number): Promise<string | undefined> {
  const bound = deadline(signal, timeoutMs);
  try {
    await cluster.apiReader.get(NAMESPACE, { name: 'default' }, { signal: bound.signal });
    return undefined;
  } catch (err) {
    if (bound.timedOut) return `no answer within ${timeoutMs} ms`;
    const e = err as { name?: unknown; code?: unknown };
    // An answer is an answer: only a refused credential counts against the cluster among HTTP errors.
    if (e.name === 'ApiError' && e.code !== 401) return undefined;
    return describeError(err);
  } finally {
    bound.dispose();
  }
}
