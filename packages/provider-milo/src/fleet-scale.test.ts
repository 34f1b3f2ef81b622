/**
 * Milo's own provider ran out of memory at about 400 projects (milo-os/milo#631: a full informer cache per project).
 * Here 1,000 ready projects are engaged in one process; the heap each costs is printed for the benchmark notes.
 * No timing is asserted: only that every project is engaged, and that stopping disengages them all.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { newManager, silentLogger } from '@multicluster-runtime/core';
import { loadUntrustedKubeconfig } from '@multicluster-runtime/core/kubeconfig';
import { startMiloServer, type MiloServer } from '@multicluster-runtime/envtest/milo';
import { MiloProvider } from './index.js';

const projects = 1_000;
let milo: MiloServer;

beforeAll(async () => {
  milo = await startMiloServer({ name: 'milo-fleet' });
});
afterAll(async () => {
  await milo.close();
});

async function inParallel<T>(items: readonly T[], width: number, each: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await each(items[next++]!);
    }),
  );
}

/** Heap in use after a full collection (the flag is set at run time, so the test needs no special Node options). */
function settledHeap(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

test(`engages ${projects} projects in one process`, async () => {
  const names = Array.from({ length: projects }, (_, i) => `project-${String(i).padStart(4, '0')}`);
  await inParallel(names, 16, (name) => milo.fixtures.createProject(name, { ready: true }));
  // Touch every control plane first, so the server's own per-project state is in the baseline, not in the figure.
  await inParallel(names, 16, (name) =>
    milo.fixtures.request('GET', `${new URL(milo.controlPlaneUrl(name)).pathname}/api/v1/namespaces/default`),
  );

  const provider = new MiloProvider();
  const mgr = newManager(loadUntrustedKubeconfig(milo.kubeconfig()), provider, { logger: silentLogger });
  const before = settledHeap();
  const startedAt = performance.now();
  const stop = new AbortController();
  const done = mgr.start(stop.signal);
  try {
    await vi.waitFor(() => expect(mgr.engagedClusters()).toHaveLength(projects), { timeout: 120_000, interval: 250 });
    const engagedAfterMs = performance.now() - startedAt;
    const after = settledHeap();
    const perProject = (after - before) / projects;
    console.log(
      `[provider-milo] ${projects} projects engaged: heap ${(before / 2 ** 20).toFixed(1)} MiB -> ${(after / 2 ** 20).toFixed(1)} MiB, ` +
        `${(perProject / 1024).toFixed(1)} KiB per engaged idle project (cluster, client, discovery, both ends of its idle keep-alive connection; server objects excluded); ` +
        `all engaged ${(engagedAfterMs / 1000).toFixed(1)} s after start`,
    );
    expect([...provider.statuses().values()].every((s) => s.state === 'engaged')).toBe(true);
  } finally {
    stop.abort();
    await done;
  }
  expect(mgr.engagedClusters()).toHaveLength(0);
}, 180_000);
