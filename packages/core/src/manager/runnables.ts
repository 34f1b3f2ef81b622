/**
 * The manager's runnables: which are registered, which run (each at most once), which are ready, and which are
 * still running when shutdown's deadline comes. A runnable that fails is reported to the manager, which stops on it
 * (or, during shutdown, only logs it). The provider and the shard coordinator are tracked here too, so shutdown
 * waits for them like for any runnable.
 */
import type { Logger } from '../log/logger.js';
import type { Aware } from '../multicluster/types.js';
import { sleep } from '../signal/wait.js';
import { RunnableFailedError } from './errors.js';
import { runnableName } from './runnable-name.js';
import type { AwareRunnable, Runnable } from './types.js';

export interface Running {
  readonly name: string;
  /** Settles (never rejects) when the runnable's `start` has returned or thrown. */
  readonly done: Promise<void>;
  ready: boolean;
}

/** True for runnables that also run per cluster (controllers). */
export function isAware(r: Runnable | AwareRunnable): r is AwareRunnable {
  return typeof (r as Partial<Aware>).engage === 'function';
}

export class Runnables {
  /** Every runnable added, in order. */
  readonly registered: (Runnable | AwareRunnable)[] = [];
  private readonly running = new Map<object, Running>();

  constructor(
    private readonly log: Logger,
    /** Stops the manager with `err`, or only logs it once shutdown has begun. */
    private readonly fail: (err: Error) => void,
    /** True once shutdown has begun: a runnable failing then is logged, not fatal. */
    private readonly stopping: () => boolean,
  ) {}

  /** Starts `r` under `signal` unless it runs already; its `waitForReady` (if any) gates readiness. */
  start(r: Runnable, signal: AbortSignal): void {
    if (this.running.has(r)) return;
    const entry = this.track(r, runnableName(r), signal, () => r.start(signal));
    if (!r.waitForReady) return;
    entry.ready = false;
    r.waitForReady(signal).then(
      (ok) => {
        entry.ready = ok;
      },
      (err: unknown) => this.log.error('runnable readiness check failed', err, { runnable: entry.name }),
    );
  }

  /** Runs `start` as the runnable `name`, turning a failure into a manager stop (unless it happens during shutdown). */
  track(key: object, name: string, signal: AbortSignal, start: () => Promise<void>): Running {
    this.log.debug('starting runnable', { runnable: name });
    const entry: Running = {
      name,
      ready: true,
      done: (async () => {
        try {
          await start();
        } catch (err) {
          if (signal.aborted && this.stopping()) this.log.error('runnable failed while stopping', err, { runnable: name });
          else this.fail(new RunnableFailedError(name, err));
        }
      })(),
    };
    this.running.set(key, entry);
    return entry;
  }

  /** Names of started runnables that are not ready yet. */
  notReady(): string[] {
    return [...this.running.values()].filter((r) => !r.ready).map((r) => r.name);
  }

  /** Waits up to `ms` for every started runnable to return; resolves the names of those still running. */
  async settle(ms: number): Promise<string[]> {
    const entries = [...this.running.values()];
    const { settled } = await settleWithin(
      entries.map((r) => r.done),
      ms,
    );
    return entries.filter((_r, i) => !settled[i]).map((r) => r.name);
  }
}

/** Waits up to `ms` for the promises (which never reject); says whether all settled, and which did. */
export async function settleWithin(promises: Promise<void>[], ms: number): Promise<{ all: boolean; settled: boolean[] }> {
  const settled = promises.map(() => false);
  const all = Promise.all(
    promises.map((p, i) =>
      p.then(() => {
        settled[i] = true;
      }),
    ),
  );
  const timer = new AbortController();
  const finished = await Promise.race([all.then(() => true), sleep(ms, timer.signal).then(() => false)]);
  timer.abort();
  return { all: finished, settled };
}
