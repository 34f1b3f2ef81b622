/**
 * One big cluster: 100,000 ConfigMaps (10,000 with --quick) in one member, the API server in the fleet process. Per
 * implementation, from publishing the member's kubeconfig: until its first reconcile (the initial list is read and
 * stored: every implementation dispatches after it), and until every object was reconciled once (that adds the
 * work queue's pace: a bare client-node handler has none); then heap and RSS per object after forced GC, minus the
 * same process before. The fleet answers both kinds of list once before anyone is measured (see warmListPaths).
 */
import { KubeConfig } from '@kubernetes/client-node';
import { Transport } from '@multicluster-runtime/core/client';
import { FleetProcess } from '../fleet/fleet-process.js';
import { nowMicros } from '../protocol.js';
import type { RunnerProcess } from '../runner-process.js';
import { formatNumber, renderTable } from '../table.js';
import { engageMembers, startFileRunner } from './engaged-runner.js';
import { errorMessage, type ScenarioContext, type ScenarioResult } from './scenario.js';
import { settledMemory } from './settled-memory.js';

export interface ObjectsResult {
  impl: string;
  objects: number;
  before: { heapBytes: number; rssBytes: number };
  after: { heapBytes: number; rssBytes: number };
  heapBytesPerObject: number;
  rssBytesPerObject: number;
  /** From publishing the kubeconfig to the first reconcile: the initial list read and stored. */
  syncSeconds: number;
  /** From publishing the kubeconfig to the last object's first reconcile. */
  allReconciledSeconds: number;
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Lists the member's objects once whole (as client-node does) and once in pages of 500 (as client-go's reflector
 * does; mcr's pages of 5,000 take the same path), unmeasured: otherwise the first implementation would be the one to
 * meet list code the fleet's process had never run, and the later ones would find it warm.
 */
async function warmListPaths(fleet: FleetProcess): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromString(await fleet.memberKubeconfig(0));
  const transport = Transport.forConfig(kc);
  try {
    await transport.request({ method: 'GET', path: '/api/v1/configmaps' });
    let next: string | undefined;
    do {
      const page = await transport.request<{ metadata?: { continue?: string } }>({
        method: 'GET',
        path: '/api/v1/configmaps',
        query: { limit: 500, continue: next },
      });
      next = page.metadata?.continue || undefined;
    } while (next);
  } finally {
    await transport.close();
  }
}

export async function objectsScenario(ctx: ScenarioContext): Promise<ScenarioResult> {
  const objects = ctx.quick ? 10_000 : 100_000;
  ctx.progress(`objects: creating ${objects} ConfigMaps in one member …`);
  const fleet = await FleetProcess.start(1, objects);
  const results: ObjectsResult[] = [];
  const errors: ScenarioResult['errors'] = [];
  try {
    await warmListPaths(fleet);
    for (const impl of ctx.impls) {
      let runner: RunnerProcess | undefined;
      try {
        const started = await startFileRunner(fleet, impl, `objects-${impl.name}`);
        runner = started.runner;
        const dir = started.dir;
        const r = runner;
        const before = await settledMemory(() => r.memory(), ctx.quick);
        // Wall-clock microseconds on both sides: the runner stamps its first reconcile when it happens, while its
        // answers to us may wait behind the reconciles that follow.
        const t0 = nowMicros();
        await engageMembers(fleet, r, dir, 1);
        const syncSeconds = (r.firsts.get('c0')! - t0) / 1e6;
        await until(async () => (await r.stats()).reconciles >= objects, 120_000 + objects, `${objects} reconciles (${impl.name})`);
        const allReconciledSeconds = (nowMicros() - t0) / 1e6;
        const after = await settledMemory(() => r.memory(), ctx.quick);
        const result: ObjectsResult = {
          impl: impl.name,
          objects,
          before,
          after,
          heapBytesPerObject: (after.heapBytes - before.heapBytes) / objects,
          rssBytesPerObject: (after.rssBytes - before.rssBytes) / objects,
          syncSeconds,
          allReconciledSeconds,
        };
        results.push(result);
        ctx.progress(
          `objects ${impl.name}: synced ${objects} in ${formatNumber(syncSeconds)} s, ${formatNumber(result.heapBytesPerObject)} B heap per object`,
        );
      } catch (err) {
        errors.push({ impl: impl.name, config: `objects=${objects}`, message: errorMessage(err) });
        ctx.progress(`objects ${impl.name} failed: ${errorMessage(err)}`);
      } finally {
        await runner?.stop();
      }
    }
  } finally {
    await fleet.close();
  }
  const mib = (b: number | undefined): string => formatNumber(b === undefined ? undefined : b / 1024 / 1024);
  const header = ['objects', 'impl', 'heap B/object', 'RSS B/object', 'heap MiB', 'RSS MiB', 'synced s', 'all reconciled s'];
  const rows = ctx.impls.map((impl) => {
    const r = results.find((x) => x.impl === impl.name);
    return [
      String(objects),
      impl.name,
      formatNumber(r?.heapBytesPerObject),
      formatNumber(r?.rssBytesPerObject),
      mib(r?.after.heapBytes),
      mib(r?.after.rssBytes),
      formatNumber(r?.syncSeconds),
      formatNumber(r?.allReconciledSeconds),
    ];
  });
  return {
    name: 'objects',
    title: 'One cluster with many objects',
    params: { objects },
    results: results as unknown as Record<string, unknown>[],
    errors,
    table: renderTable(
      `One cluster with ${objects} ConfigMaps: publish kubeconfig → first reconcile (list synced) and → every object reconciled once; memory per object after GC (minus the process before)`,
      header,
      rows,
    ),
  };
}
