/** Many in-memory servers at once (a fleet of 100 is cheap: they share one CA and one set of certificates). */
import type { ApiServer } from './api-server.js';
import { startApiServer } from './api-server.js';
import type { ApiServerOptions } from './server/options.js';
import { InvalidOptionsError } from './errors.js';

/**
 * Several in-memory servers started together; `close()` stops them all.
 */
export interface Fleet {
  readonly servers: readonly ApiServer[];
  /** Stops every server of the fleet. */
  close(): Promise<void>;
}

/** Starts `n` servers named `<prefix>-<i>` (prefix default "cluster"). If one fails to start, the others are closed. */
export async function startFleet(n: number, opts: Omit<ApiServerOptions, 'port' | 'name'> & { namePrefix?: string } = {}): Promise<Fleet> {
  if (!Number.isInteger(n) || n < 0) throw new InvalidOptionsError(`fleet size must be a non-negative integer, got ${n}`);
  const { namePrefix = 'cluster', ...serverOpts } = opts;
  const results = await Promise.allSettled(
    Array.from({ length: n }, (_, i) => startApiServer({ ...serverOpts, name: `${namePrefix}-${i}` })),
  );
  const servers = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) {
    await Promise.all(servers.map((s) => s.close()));
    throw failure.reason;
  }
  return { servers, close: async () => void (await Promise.all(servers.map((s) => s.close()))) };
}
