/**
 * One big cluster: 100,000 ConfigMaps (10,000 with --quick) in one member, the API server in the fleet process. Per
 * implementation, from publishing the member's kubeconfig: until its first reconcile (the initial list is read and
 * stored: every implementation dispatches after it), and until every object was reconciled once (that adds the
 * work queue's pace: a bare client-node handler has none); then heap and RSS per object after forced GC, minus the
 * same process before. The fleet answers both kinds of list once before anyone is measured (see warmListPaths).
 * The implementations take turns in rounds whose order rotates (see rounds.ts), each turn in a runner of its own, and
 * every figure is the median over the rounds with its range: one sync of 100,000 objects moves by ±20 % between
 * runs, more than the implementations differ.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { Transport } from '@multicluster-runtime/core/client';
import { FleetProcess } from '../fleet/fleet-process.js';
import { nowMicros } from '../protocol.js';
import type { ImplSpec } from '../runner-process.js';
import { spread, type Spread } from '../stats.js';
import { formatNumber, formatRange, renderTable } from '../table.js';
import { engageMembers, startFileRunner } from './engaged-runner.js';
import { turnOrder } from './rounds.js';
import { errorMessage, type ScenarioContext, type ScenarioResult } from './scenario.js';
import { settledMemory } from './settled-memory.js';

/** One turn of one implementation. */
interface ObjectsTurn {
  before: { heapBytes: number; rssBytes: number };
  after: { heapBytes: number; rssBytes: number };
  heapBytesPerObject: number;
  rssBytesPerObject: number;
  /** From publishing the kubeconfig to the first reconcile: the initial list read and stored. */
  syncSeconds: number;
  /** From publishing the kubeconfig to the last object's first reconcile. */
  allReconciledSeconds: number;
}

/** An implementation's turns, each figure as median and range over them. */
export interface ObjectsResult {
  impl: string;
  objects: number;
  heapBytesPerObject: Spread;
  rssBytesPerObject: Spread;
  /** Heap and RSS after the sync, bytes. */
  heapBytes: Spread;
  rssBytes: Spread;
  syncSeconds: Spread;
  allReconciledSeconds: Spread;
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

/** One turn: a fresh runner engages the member; how long until synced and all reconciled, and what it then holds. */
async function measureTurn(fleet: FleetProcess, impl: ImplSpec, objects: number, quick: boolean, name: string): Promise<ObjectsTurn> {
  const { runner, dir } = await startFileRunner(fleet, impl, name);
  try {
    const before = await settledMemory(() => runner.memory(), quick);
    // Wall-clock microseconds on both sides: the runner stamps its first reconcile when it happens, while its
    // answers to us may wait behind the reconciles that follow.
    const t0 = nowMicros();
    await engageMembers(fleet, runner, dir, 1);
    const syncSeconds = (runner.firsts.get('c0')! - t0) / 1e6;
    await until(async () => (await runner.stats()).reconciles >= objects, 120_000 + objects, `${objects} reconciles (${impl.name})`);
    const allReconciledSeconds = (nowMicros() - t0) / 1e6;
    const after = await settledMemory(() => runner.memory(), quick);
    return {
      before,
      after,
      heapBytesPerObject: (after.heapBytes - before.heapBytes) / objects,
      rssBytesPerObject: (after.rssBytes - before.rssBytes) / objects,
      syncSeconds,
      allReconciledSeconds,
    };
  } finally {
    await runner.stop();
  }
}

export async function objectsScenario(ctx: ScenarioContext): Promise<ScenarioResult> {
  const objects = ctx.quick ? 10_000 : 100_000;
  const rounds = ctx.quick ? 1 : 3;
  ctx.progress(`objects: creating ${objects} ConfigMaps in one member …`);
  const fleet = await FleetProcess.start(1, objects);
  const turnsOf = new Map<string, ObjectsTurn[]>();
  const errors: ScenarioResult['errors'] = [];
  try {
    await warmListPaths(fleet);
    for (const { item: impl, round } of turnOrder(ctx.impls, rounds)) {
      const mine = turnsOf.get(impl.name) ?? [];
      if (mine.length < round) continue; // failed in an earlier round: reported there
      try {
        const turn = await measureTurn(fleet, impl, objects, ctx.quick, `objects-${impl.name}-r${round}`);
        turnsOf.set(impl.name, [...mine, turn]);
        ctx.progress(
          `objects ${impl.name}, round ${round + 1} of ${rounds}: synced ${objects} in ${formatNumber(turn.syncSeconds)} s, ${formatNumber(turn.heapBytesPerObject)} B heap per object`,
        );
      } catch (err) {
        errors.push({ impl: impl.name, config: `objects=${objects}`, message: errorMessage(err) });
        ctx.progress(`objects ${impl.name} failed: ${errorMessage(err)}`);
      }
    }
  } finally {
    await fleet.close();
  }
  const results: ObjectsResult[] = [];
  for (const impl of ctx.impls) {
    const turns = turnsOf.get(impl.name) ?? [];
    if (turns.length < rounds) continue; // failed part-way: reported in errors
    const of = (f: (t: ObjectsTurn) => number): Spread => spread(turns.map(f));
    results.push({
      impl: impl.name,
      objects,
      heapBytesPerObject: of((t) => t.heapBytesPerObject),
      rssBytesPerObject: of((t) => t.rssBytesPerObject),
      heapBytes: of((t) => t.after.heapBytes),
      rssBytes: of((t) => t.after.rssBytes),
      syncSeconds: of((t) => t.syncSeconds),
      allReconciledSeconds: of((t) => t.allReconciledSeconds),
    });
  }
  const mib = (b: number | undefined): string => formatNumber(b === undefined ? undefined : b / 1024 / 1024);
  const header = ['objects', 'impl', 'heap B/object', 'RSS B/object', 'heap MiB', 'RSS MiB', 'synced s', 'range', 'all reconciled s'];
  const rows = ctx.impls.map((impl) => {
    const r = results.find((x) => x.impl === impl.name);
    return [
      String(objects),
      impl.name,
      formatNumber(r?.heapBytesPerObject.median),
      formatNumber(r?.rssBytesPerObject.median),
      mib(r?.heapBytes.median),
      mib(r?.rssBytes.median),
      formatNumber(r?.syncSeconds.median),
      formatRange(r?.syncSeconds),
      formatNumber(r?.allReconciledSeconds.median),
    ];
  });
  return {
    name: 'objects',
    title: 'One cluster with many objects',
    params: { objects, rounds },
    results: results as unknown as Record<string, unknown>[],
    errors,
    table: renderTable(
      `One cluster with ${objects} ConfigMaps: publish kubeconfig → first reconcile (list synced) and → every object reconciled once; memory per object after GC (minus the process before); median of ${rounds} turns`,
      header,
      rows,
    ),
  };
}
