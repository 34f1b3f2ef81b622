/**
 * The manager's shutdown, in order, within one deadline: sharding lets go of its clusters (fences stay held), the
 * runnables and the provider are stopped and waited for, each fence is released once its cluster's reconciles have
 * ended, the leader Lease is handed over only if no leader work still runs (else it expires, so two leaders never
 * overlap), and the local cluster stops last (the releases are written through its client). What outlives the
 * deadline is abandoned and named.
 */
import type { Leadership } from '../leaderelection/lease-elector.js';
import type { Logger } from '../log/logger.js';
import type { ShardCoordinator } from '../sharding/coordinator.js';
import { settleWithin, type Runnables } from './runnables.js';

export interface ShutdownParts {
  readonly coordinator: ShardCoordinator | undefined;
  /** Aborts the runnables' signal and ends every engagement. */
  stopRunnables(): void;
  /** The leader Lease term, if this replica was elected (settles once the campaign has). */
  readonly leadership: Promise<Leadership | undefined>;
  readonly runnables: Runnables;
  /** Aborts the local cluster's signal. */
  stopLocalCluster(): void;
  /** Settles when the local cluster has stopped. */
  readonly localDone: Promise<void>;
  readonly log: Logger;
}

/** Runs every step within `timeoutMs`; resolves the names of what was still running when it gave up on them. */
export async function shutDown(parts: ShutdownParts, timeoutMs: number): Promise<string[]> {
  const deadline = performance.now() + timeoutMs;
  const remaining = () => Math.max(0, deadline - performance.now());
  parts.coordinator?.stop();
  parts.stopRunnables();
  const term = await parts.leadership;
  const stillRunning = await parts.runnables.settle(remaining());
  await releaseFences(parts, stillRunning, remaining);
  await handOver(parts.log, term, stillRunning);
  parts.stopLocalCluster();
  if (!(await settleWithin([parts.localDone], remaining())).all) stillRunning.push('local cluster');
  return stillRunning;
}

/** Each fence is released only once its cluster's reconciles have ended; the others are left to expire. */
async function releaseFences(parts: ShutdownParts, stillRunning: string[], remaining: () => number): Promise<void> {
  const { coordinator, log } = parts;
  if (!coordinator) return;
  if (stillRunning.length > 0) {
    log.warn('runnables are still running; fences of clusters still being reconciled will expire instead of being released', {
      stillRunning,
    });
  }
  await settleWithin(
    [coordinator.close(remaining()).catch((err: unknown) => log.error('releasing cluster fences failed', err))],
    remaining(),
  );
}

/** Hands the Lease over at once only if no leader work still runs; otherwise lets it expire. */
async function handOver(log: Logger, term: Leadership | undefined, stillRunning: string[]): Promise<void> {
  if (!term) return;
  if (stillRunning.length === 0) {
    await term.release();
    return;
  }
  log.warn('not releasing the leader Lease: runnables are still running; it will expire', { stillRunning });
  term.abandon();
}
