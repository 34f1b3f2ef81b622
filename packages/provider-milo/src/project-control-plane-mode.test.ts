/**
 * ProjectControlPlane mode (upstream has no test for it) against a fake Milo: ProjectControlPlanes are watched on the
 * infrastructure cluster and each control plane is reached through the internal address pattern.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { newCluster, newManager, silentLogger } from '@multicluster-runtime/core';
import { loadUntrustedKubeconfig } from '@multicluster-runtime/core/kubeconfig';
import type { MultiClusterManager } from '@multicluster-runtime/core/manager';
import { startMiloServer, type MiloFixtures, type MiloServer } from '@multicluster-runtime/envtest/milo';
import { MiloProvider, type MiloProviderOptions } from './index.js';

const configMap = { apiVersion: 'v1', kind: 'ConfigMap' };
let server: MiloServer;
let milo: MiloFixtures;
const stops: Array<{ stop: AbortController; done: Promise<void> }> = [];
let created: string[] = [];

beforeAll(async () => {
  server = await startMiloServer({ name: 'milo-infra' });
  milo = server.fixtures;
});
afterEach(async () => {
  for (const s of stops.splice(0)) {
    s.stop.abort();
    await s.done;
  }
  await Promise.all(created.map((name) => milo.deleteProjectControlPlane(name).catch(() => undefined)));
  created = [];
});
afterAll(async () => {
  await server.close();
});

async function controlPlane(name: string, ready: boolean): Promise<void> {
  created.push(name);
  await milo.createProjectControlPlane(name, { ready });
}

function startManager(options: MiloProviderOptions = {}): { mgr: MultiClusterManager; provider: MiloProvider } {
  const provider = new MiloProvider({
    mode: 'projectControlPlane',
    internalAddress: server.internalAddress,
    retry: { initialMs: 100, maxMs: 500 },
    ...options,
  });
  const mgr = newManager(loadUntrustedKubeconfig(server.kubeconfig()), provider, { logger: silentLogger });
  const stop = new AbortController();
  stops.push({ stop, done: mgr.start(stop.signal) });
  return { mgr, provider };
}

/** Reads a ConfigMap straight from a logical cluster, bypassing the provider. */
async function readDirect(project: string, name: string): Promise<Record<string, string> | undefined> {
  const cluster = newCluster(loadUntrustedKubeconfig(server.projectKubeconfig(project)));
  try {
    const cm = await cluster.apiReader.get(configMap, { namespace: 'default', name });
    return cm['data'] as Record<string, string>;
  } finally {
    await cluster.close();
  }
}

describe('MiloProvider in projectControlPlane mode', () => {
  test('engages a project when its ControlPlaneReady is True and talks to that project only', async () => {
    const { mgr, provider } = startManager();
    await controlPlane('alpha', true);
    await controlPlane('beta', false);
    await vi.waitFor(() => expect(mgr.engagedClusters()).toContain('alpha'), { timeout: 10_000 });
    expect(mgr.engagedClusters()).not.toContain('beta');
    expect(provider.status('beta')).toMatchObject({ state: 'notReady', reason: "the project's ControlPlaneReady condition is not True" });

    const alpha = await mgr.getCluster('alpha');
    expect(alpha.config.getCurrentCluster()?.server).toBe(server.controlPlaneUrl('alpha'));
    await alpha.client.create({ ...configMap, metadata: { namespace: 'default', name: 'hello' }, data: { from: 'alpha' } });
    expect(await readDirect('alpha', 'hello')).toEqual({ from: 'alpha' });
    await expect(readDirect('beta', 'hello')).rejects.toMatchObject({ code: 404 });
  });

  test('disengages when no longer ready or deleted, and engages again when ready', async () => {
    const { mgr } = startManager();
    await controlPlane('gamma', true);
    await vi.waitFor(() => expect(mgr.engagedClusters()).toContain('gamma'), { timeout: 10_000 });
    const first = await mgr.getCluster('gamma');

    await milo.setControlPlaneReady('gamma', false);
    await vi.waitFor(() => expect(mgr.engagedClusters()).not.toContain('gamma'), { timeout: 10_000 });
    await expect(mgr.getCluster('gamma')).rejects.toThrow(/gamma/);

    await milo.setControlPlaneReady('gamma', true);
    await vi.waitFor(() => expect(mgr.engagedClusters()).toContain('gamma'), { timeout: 10_000 });
    expect(await mgr.getCluster('gamma')).not.toBe(first);

    await milo.deleteProjectControlPlane('gamma');
    await vi.waitFor(() => expect(mgr.engagedClusters()).not.toContain('gamma'), { timeout: 10_000 });
  });

  test('a control plane that never answers does not hold up the others, and is reported unreachable', async () => {
    // Accepts TCP connections and never speaks: the worst kind of unreachable (no refusal, no TLS handshake).
    const held: Socket[] = [];
    const blackHole: Server = createServer((s) => {
      held.push(s);
    });
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const port = (blackHole.address() as { port: number }).port;
    try {
      const { mgr, provider } = startManager({
        probeTimeoutMs: 1_000,
        internalAddress: (name) => (name === 'stuck' ? `https://127.0.0.1:${port}` : server.controlPlaneUrl(name)),
      });
      await controlPlane('stuck', true);
      await vi.waitFor(() => expect(provider.status('stuck')?.state).toBe('pending'), { timeout: 10_000 });
      await controlPlane('delta', true);
      await controlPlane('epsilon', true);
      await vi.waitFor(() => expect(mgr.engagedClusters()).toEqual(expect.arrayContaining(['delta', 'epsilon'])), { timeout: 10_000 });
      await vi.waitFor(() => expect(provider.status('stuck')?.state).toBe('unreachable'), { timeout: 10_000 });
      expect(mgr.engagedClusters()).not.toContain('stuck');
    } finally {
      for (const s of held) s.destroy();
      await new Promise<void>((resolve) => blackHole.close(() => resolve()));
    }
  });

  test('only projects matching the label selector are engaged, and one that stops matching is disengaged', async () => {
    const { mgr } = startManager({ labelSelector: { fleet: 'blue' } });
    created.push('zeta', 'eta');
    await milo.createProjectControlPlane('zeta', { ready: true, labels: { fleet: 'blue' } });
    await milo.createProjectControlPlane('eta', { ready: true, labels: { fleet: 'green' } });
    await vi.waitFor(() => expect(mgr.engagedClusters()).toContain('zeta'), { timeout: 10_000 });
    expect(mgr.engagedClusters()).not.toContain('eta');
    await milo.labelProjectControlPlane('zeta', { fleet: 'green' });
    await vi.waitFor(() => expect(mgr.engagedClusters()).not.toContain('zeta'), { timeout: 10_000 });
    await milo.labelProjectControlPlane('eta', { fleet: 'blue' });
    await vi.waitFor(() => expect(mgr.engagedClusters()).toContain('eta'), { timeout: 10_000 });
  });
});
