/**
 * The demo itself, callable from a test: runs the controllers on the chosen fleet until `signal` aborts (or the
 * duration passes) and returns what they did.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { createLogger, newManager, PrometheusMetrics, type Provider } from '@multicluster-runtime/core';
import { CapiProvider } from '@multicluster-runtime/provider-capi';
import { ClusterProfileProvider, loadAccessConfigFile } from '@multicluster-runtime/provider-cluster-inventory-api';
import { KindProvider } from '@multicluster-runtime/provider-kind';
import { KubeconfigFileProvider } from '@multicluster-runtime/provider-kubeconfig';
import { NamespaceProvider } from '@multicluster-runtime/provider-namespace';
import { GardenerProvider } from '@multicluster-runtime/provider-gardener';
import { isStatusSource } from '@multicluster-runtime/core/providers';
import { UsageError, type DemoArgs } from './args.js';
import { mirrorNamespace, setupControllers } from './controllers.js';
import { EmbeddedFleet } from './fleet.js';
import { DemoStats, type ClusterRow } from './stats.js';
import { renderTable, runView } from './view.js';

export interface DemoSummary {
  reconciles: number;
  errors: number;
  clusters: number;
  rows: ClusterRow[];
}

function realProvider(source: Exclude<DemoArgs['source'], { kind: 'embedded' }>): Provider {
  switch (source.kind) {
    case 'kind':
      return new KindProvider(source.prefix ? { namePrefix: source.prefix } : {});
    case 'capi':
      return new CapiProvider(source.namespace ? { namespace: source.namespace } : {});
    case 'namespaces':
      // Never the namespace the mirror controller writes into (the API server labels each namespace with its name).
      return new NamespaceProvider({
        labelSelector: [source.selector, `kubernetes.io/metadata.name!=${mirrorNamespace}`].filter(Boolean).join(','),
      });
    case 'garden':
      return new GardenerProvider(source.namespace ? { namespace: source.namespace } : {});
    case 'cluster-profiles':
      return new ClusterProfileProvider({ namespace: source.namespace, accessConfig: loadAccessConfigFile(source.accessConfig) });
    case 'kubeconfig-dir':
      return new KubeconfigFileProvider({ paths: [source.dir] });
  }
}

export async function runDemo(args: DemoArgs, stop: AbortSignal, out: NodeJS.WritableStream = process.stdout): Promise<DemoSummary> {
  // Read before anything starts, so a bad path is a usage error with nothing left running.
  const garden = args.source.kind === 'garden' ? loadGarden(args.source.kubeconfig) : undefined;
  const stats = new DemoStats();
  const run = new AbortController();
  stop.addEventListener('abort', () => run.abort(), { once: true });
  const timer = args.durationSec !== undefined ? setTimeout(() => run.abort(), args.durationSec * 1000) : undefined;

  let fleet: EmbeddedFleet | undefined;
  let host: KubeConfig;
  let provider: Provider;
  if (args.source.kind === 'embedded') {
    stats.note(`starting host and ${args.clusters} member API servers`);
    fleet = await EmbeddedFleet.start(args.clusters, (e) => stats.note(`${e.member} ${e.type} the fleet`));
    host = fleet.hostConfig();
    // Checked every 2 s, so a member that stops answering shows in the table within seconds.
    provider = new KubeconfigFileProvider({ paths: [fleet.dir], healthCheck: { intervalMs: 2_000, timeoutMs: 1_000 } });
  } else {
    host = garden ?? new KubeConfig();
    if (!garden) host.loadFromDefault();
    provider = realProvider(args.source);
  }

  const metrics = new PrometheusMetrics();
  const mgr = newManager(host, provider, {
    metrics,
    logger: createLogger({ level: (process.env['MCR_LOG_LEVEL'] as 'debug' | undefined) ?? 'error' }),
    gracefulShutdownTimeoutMs: 10_000,
  });
  await setupControllers(mgr, stats);

  const work: Promise<unknown>[] = [mgr.start(run.signal)];
  if (fleet) {
    work.push(fleet.churn(run.signal, args.churnSec * 1000, args.maxClusters));
    work.push(fleet.load(run.signal, 250));
  }
  const live = (out as { isTTY?: boolean }).isTTY === true && !args.plain;
  const view = {
    stats,
    engaged: () => mgr.engagedClusters(),
    ...(isStatusSource(provider) ? { statuses: () => provider.statuses() } : {}),
    queueDepth: async () => {
      const depth = (await metrics.registry.getSingleMetric('mcr_workqueue_depth')?.get())?.values ?? [];
      return depth.reduce((sum, v) => sum + v.value, 0);
    },
  };
  work.push(runView(view, live, run.signal, out));
  try {
    await Promise.all(work);
  } finally {
    if (timer) clearTimeout(timer);
    out.write(`\n${await renderTable(view, true)}\n\n`);
    await fleet?.close();
  }
  const summary = { reconciles: stats.total(), errors: stats.errors(), clusters: stats.all().length, rows: stats.all() };
  out.write(`summary: ${summary.reconciles} reconciles across ${summary.clusters} clusters, ${summary.errors} errors\n`);
  return summary;
}

function loadGarden(path: string): KubeConfig {
  const kc = new KubeConfig();
  try {
    kc.loadFromFile(path);
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new UsageError(`--garden: cannot load the kubeconfig ${path} (${why})`);
  }
  return kc;
}
