/**
 * Runner: multicluster-runtime (this repo), as a user would write it. A manager on the host cluster, the kubeconfig
 * file or Secret provider with its defaults, and one controller for ConfigMaps whose reconciler reads the object
 * from the cache and records it. Started by the bench as `node mcr-runner.js --provider … --host-kubeconfig …`.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { newManager, silentLogger, type ProviderRunnable } from '@multicluster-runtime/core';
import { KubeconfigFileProvider, KubeconfigSecretProvider } from '@multicluster-runtime/provider-kubeconfig';
import { addBenchController } from './bench-controller.js';
import { runnerMain, type StartImpl } from './serve-runner.js';

const start: StartImpl = (args, recorder) => {
  const host = new KubeConfig();
  host.loadFromFile(args.hostKubeconfig);
  const provider: ProviderRunnable =
    args.provider === 'file'
      ? new KubeconfigFileProvider({ paths: [args.dir] })
      : new KubeconfigSecretProvider({ namespace: args.namespace });
  const mgr = newManager(host, provider, { logger: silentLogger, gracefulShutdownTimeoutMs: 10_000 });
  addBenchController(mgr, recorder, args.concurrency);

  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  running.catch((err: unknown) => {
    process.stderr.write(`mcr runner: manager failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
  return Promise.resolve({
    engaged: () => mgr.engagedClusters().filter((name) => name !== '').length,
    stop: async () => {
      stop.abort();
      await running.catch(() => {});
    },
  });
};

runnerMain('mcr', start);
