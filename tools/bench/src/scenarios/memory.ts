/**
 * Memory per engaged idle cluster: heap and RSS of the implementation's process after forced GC, with N clusters
 * engaged (each holding a few ConfigMaps, no updates) minus the same process before any cluster was engaged,
 * divided by N, and the time to engage them all. The API servers live in the fleet server process, so their cost
 * never counts. Node runners run with --expose-gc; Go reports HeapAlloc after runtime.GC() and VmRSS.
 *
 * `memory` does it at 100 and 1,000 clusters for every implementation; `scale` at 5,000 for mcr and client-node
 * (the Go baseline engages one cluster at a time, about 0.1 s each: some nine minutes for 5,000).
 */
import { FleetProcess } from '../fleet/fleet-process.js';
import type { RunnerProcess } from '../runner-process.js';
import type { MemoryReply } from '../protocol.js';
import { formatNumber, renderTable } from '../table.js';
import { engageMembers, startFileRunner } from './engaged-runner.js';
import { settledMemory, settlePauseMs } from './settled-memory.js';
import { errorMessage, type ScenarioContext, type ScenarioResult } from './scenario.js';

export interface MemoryResult {
  impl: string;
  clusters: number;
  objectsPerCluster: number;
  before: MemoryReply;
  /** Median of three readings once every cluster was engaged. */
  after: { heapBytes: number; rssBytes: number };
  heapBytesPerCluster: number;
  rssBytesPerCluster: number;
  /** From publishing the first kubeconfig to the last cluster's first reconcile. */
  engageAllSeconds: number;
}

export function memoryScenario(ctx: ScenarioContext): Promise<ScenarioResult> {
  return memoryAt(ctx, 'memory', ctx.quick ? [20] : [100, 1000]);
}

/** The Go baseline is left out: it engages one cluster at a time, about nine minutes for 5,000. */
export function scaleScenario(ctx: ScenarioContext): Promise<ScenarioResult> {
  const impls = ctx.impls.filter((impl) => impl.name !== 'go-mcr');
  const sizes = ctx.quick ? [20] : [5000];
  if (impls.length === 0) {
    return Promise.resolve({
      name: 'scale',
      title: 'Scale',
      params: { clusters: sizes, objectsPerCluster: 5 },
      results: [],
      errors: [],
      table: 'Scale: skipped (mcr and client-node run it; go-mcr engages one cluster at a time)',
    });
  }
  return memoryAt({ ...ctx, impls }, 'scale', sizes);
}

async function memoryAt(ctx: ScenarioContext, name: 'memory' | 'scale', sizes: number[]): Promise<ScenarioResult> {
  const objects = 5;
  const fleet = await FleetProcess.start(Math.max(...sizes), objects);
  const results: MemoryResult[] = [];
  const errors: ScenarioResult['errors'] = [];
  try {
    for (const clusters of sizes) {
      for (const impl of ctx.impls) {
        let runner: RunnerProcess | undefined;
        try {
          const started = await startFileRunner(fleet, impl, `memory-${impl.name}`);
          const running = (runner = started.runner);
          const dir = started.dir;
          await new Promise((r) => setTimeout(r, 2 * settlePauseMs(ctx.quick)));
          const before = await runner.memory();
          const t0 = performance.now();
          await engageMembers(fleet, runner, dir, clusters);
          const engageAllSeconds = (performance.now() - t0) / 1000;
          const after = await settledMemory(() => running.memory(), ctx.quick);
          const r: MemoryResult = {
            impl: impl.name,
            clusters,
            objectsPerCluster: objects,
            before,
            after,
            engageAllSeconds,
            heapBytesPerCluster: (after.heapBytes - before.heapBytes) / clusters,
            rssBytesPerCluster: (after.rssBytes - before.rssBytes) / clusters,
          };
          results.push(r);
          ctx.progress(
            `${name} ${impl.name} ${clusters} clusters: ${formatNumber(r.heapBytesPerCluster / 1024)} KiB heap, ${formatNumber(r.rssBytesPerCluster / 1024)} KiB RSS per cluster, all engaged in ${formatNumber(engageAllSeconds)} s`,
          );
        } catch (err) {
          errors.push({ impl: impl.name, config: `clusters=${clusters}`, message: errorMessage(err) });
          ctx.progress(`${name} ${impl.name} ${clusters} clusters failed: ${errorMessage(err)}`);
        } finally {
          await runner?.stop();
        }
      }
    }
  } finally {
    await fleet.close();
  }

  const mib = (b: number | undefined): string => formatNumber(b === undefined ? undefined : b / 1024 / 1024);
  const kib = (b: number | undefined): string => formatNumber(b === undefined ? undefined : b / 1024);
  const header = ['clusters', 'impl', 'heap KiB/cluster', 'RSS KiB/cluster', 'heap MiB', 'RSS MiB', 'engage all s'];
  const rows = sizes.flatMap((clusters) =>
    ctx.impls.map((impl) => {
      const r = results.find((x) => x.impl === impl.name && x.clusters === clusters);
      return [
        String(clusters),
        impl.name,
        kib(r?.heapBytesPerCluster),
        kib(r?.rssBytesPerCluster),
        mib(r?.after.heapBytes),
        mib(r?.after.rssBytes),
        formatNumber(r?.engageAllSeconds),
      ];
    }),
  );
  return {
    name,
    title:
      name === 'memory' ? 'Memory per engaged idle cluster' : `${formatNumber(Math.max(...sizes), 0)} engaged idle clusters in one process`,
    params: { sizes, objectsPerCluster: objects, readings: 3 },
    results: results as unknown as Record<string, unknown>[],
    errors,
    table: renderTable(
      `${name === 'memory' ? 'Memory per engaged idle cluster' : 'Scale: engaged idle clusters in one process'} (${objects} ConfigMaps each; after GC, minus the process before engaging)`,
      header,
      rows,
    ),
  };
}
