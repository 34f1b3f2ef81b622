/**
 * This repository's side of a cross-check: a provider under a manager, with the same uniform ConfigMap controller as
 * tools/go-upstream-providers (reads from the cluster's cache, as upstream's cluster client does), reporting to an
 * Observation. An Aware runnable added before the controller reports engagements first, as the Go side does.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Cluster, Logger, Provider } from '@multicluster-runtime/core';
import { controllerManagedBy, createLogger, isNotFound, newManager } from '@multicluster-runtime/core';
import type { Observation } from './observation.test-util.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };

export interface TsSide {
  stop(): Promise<void>;
  /** The last log lines of the manager and provider, to explain a failure. */
  logTail(lines: number): string;
}

/**
 * Starts a manager on `host` over the provider `makeProvider` returns (given the logger that keeps the lines
 * logTail shows) and reports to `observation`.
 */
export async function startTsSide(
  host: KubeConfig,
  makeProvider: (logger: Logger) => Provider | Promise<Provider>,
  observation: Observation,
): Promise<TsSide> {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    sink: (level, msg, fields) => {
      lines.push(`${level} ${msg} ${JSON.stringify(fields)}`);
      if (lines.length > 500) lines.shift();
    },
  });
  const mgr = newManager(host, await makeProvider(logger), { logger });
  let engagements = 0;
  mgr.add({
    name: 'observer',
    start: (signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
    engage: async (signal: AbortSignal, name: string) => {
      const id = String(++engagements);
      observation.engage(name, id);
      signal.addEventListener('abort', () => observation.disengage(name, id), { once: true });
    },
  });
  controllerManagedBy(mgr)
    .named('cross-check')
    .for(CONFIGMAP)
    .complete(async (req) => {
      let cluster: Cluster;
      try {
        cluster = await mgr.getCluster(req.clusterName);
      } catch {
        return; // disengaged meanwhile
      }
      const key = `${req.namespace}/${req.name}`;
      try {
        const cm = await cluster.cache.get<{ metadata: { resourceVersion?: string }; data?: unknown }>(CONFIGMAP, req);
        observation.reconcile(req.clusterName, key, {
          found: true,
          resourceVersion: cm.metadata.resourceVersion ?? '',
          content: cm.data ?? null,
        });
      } catch (err) {
        if (!isNotFound(err)) throw err;
        observation.reconcile(req.clusterName, key, { found: false });
      }
    });
  const stop = new AbortController();
  const done = mgr.start(stop.signal);
  // A manager that fails before stop() is asked for ends the observation (the step then says why) instead of being
  // an unhandled rejection; stop() still rethrows it.
  done.catch((err: unknown) => observation.fail(`the manager stopped: ${err instanceof Error ? err.message : String(err)}`));
  return {
    async stop() {
      stop.abort();
      await done;
    },
    logTail: (n) => lines.slice(-n).join('\n'),
  };
}
