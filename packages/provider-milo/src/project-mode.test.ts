/**
 * Project mode (the default) against a fake Milo: Projects are watched on Milo's API and each project's control plane
 * is reached under that API, at `<base>/apis/resourcemanager.miloapis.com/v1alpha1/projects/<name>/control-plane`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { newCluster, newManager, silentLogger } from '@multicluster-runtime/core';
import { loadUntrustedKubeconfig } from '@multicluster-runtime/core/kubeconfig';
import type { MultiClusterManager } from '@multicluster-runtime/core/manager';
import { startMiloServer, type MiloServer } from '@multicluster-runtime/envtest/milo';
import { MiloProvider, type MiloProviderOptions } from './index.js';

const configMap = { apiVersion: 'v1', kind: 'ConfigMap' };
let milo: MiloServer;
const stops: Array<{ stop: AbortController; done: Promise<void> }> = [];
let created: string[] = [];

beforeAll(async () => {
  milo = await startMiloServer({ name: 'milo' });
});
afterEach(async () => {
  for (const s of stops.splice(0)) {
    s.stop.abort();
    await s.done;
  }
  await Promise.all(created.map((name) => milo.fixtures.deleteProject(name).catch(() => undefined)));
  created = [];
});
afterAll(async () => {
  await milo.close();
});

async function project(name: string, ready: boolean, labels?: Record<string, string>): Promise<void> {
  created.push(name);
  await milo.fixtures.createProject(name, { ready, ...(labels ? { labels } : {}) });
}

function startManager(options: MiloProviderOptions = {}): { mgr: MultiClusterManager; provider: MiloProvider } {
  const provider = new MiloProvider({ retry: { initialMs: 100, maxMs: 500 }, ...options });
  const mgr = newManager(loadUntrustedKubeconfig(milo.kubeconfig()), provider, { logger: silentLogger });
  const stop = new AbortController();
  stops.push({ stop, done: mgr.start(stop.signal) });
  return { mgr, provider };
}

/** Reads a ConfigMap through the project's control-plane URL, bypassing the provider. */
async function readDirect(name: string, cm: string): Promise<Record<string, string> | undefined> {
  const cluster = newCluster(loadUntrustedKubeconfig(milo.projectKubeconfig(name)));
  try {
    return (await cluster.apiReader.get(configMap, { namespace: 'default', name: cm }))['data'] as Record<string, string>;
  } finally {
    await cluster.close();
  }
}

describe('MiloProvider in project mode', () => {
  test('engages ready Projects at their control-plane URL; each project is its own API', async () => {
    const { mgr, provider } = startManager();
    await project('alpha', true);
    await project('beta', true);
    await project('waiting', false);
    await vi.waitFor(() => expect(mgr.engagedClusters()).toEqual(expect.arrayContaining(['alpha', 'beta'])), { timeout: 10_000 });
    expect(mgr.engagedClusters()).not.toContain('waiting');
    expect(provider.status('waiting')).toMatchObject({ state: 'notReady', reason: "the project's Ready condition is not True" });

    const alpha = await mgr.getCluster('alpha');
    expect(alpha.config.getCurrentCluster()?.server).toBe(milo.controlPlaneUrl('alpha'));
    await alpha.client.create({ ...configMap, metadata: { namespace: 'default', name: 'settings' }, data: { project: 'alpha' } });
    expect(await readDirect('alpha', 'settings')).toEqual({ project: 'alpha' });
    await expect(readDirect('beta', 'settings')).rejects.toMatchObject({ code: 404 });
    // Milo's own API does not see project objects.
    const core = newCluster(loadUntrustedKubeconfig(milo.kubeconfig()));
    try {
      await expect(core.apiReader.get(configMap, { namespace: 'default', name: 'settings' })).rejects.toMatchObject({ code: 404 });
    } finally {
      await core.close();
    }
  });

  test('disengages a Project that stops being ready or is deleted, and engages it again when ready', async () => {
    const { mgr } = startManager();
    await project('gamma', true);
    await vi.waitFor(() => expect(mgr.engagedClusters()).toContain('gamma'), { timeout: 10_000 });
    await milo.fixtures.setProjectReady('gamma', false);
    await vi.waitFor(() => expect(mgr.engagedClusters()).not.toContain('gamma'), { timeout: 10_000 });
    await milo.fixtures.setProjectReady('gamma', true);
    await vi.waitFor(() => expect(mgr.engagedClusters()).toContain('gamma'), { timeout: 10_000 });
    await milo.fixtures.deleteProject('gamma');
    await vi.waitFor(() => expect(mgr.engagedClusters()).not.toContain('gamma'), { timeout: 10_000 });
  });

  test('keeps a path prefix on the base URL (Milo behind a path-routing gateway)', async () => {
    // The gateway: everything under /gateway is Milo's API.
    const removeMount = milo.addMount({
      resolve: (path) => {
        if (!path.startsWith('/gateway/')) return undefined;
        const m = /^\/gateway\/apis\/resourcemanager\.miloapis\.com\/v1alpha1\/projects\/([a-z0-9.-]+)\/control-plane(\/.*)?$/.exec(path);
        return m ? { cluster: m[1]!, path: m[2] ?? '/' } : undefined;
      },
    });
    try {
      const base = loadUntrustedKubeconfig(milo.kubeconfig());
      base.clusters[0] = { ...base.clusters[0]!, server: `${milo.url}/gateway` };
      const { mgr } = startManager({ baseConfig: base });
      await project('delta', true);
      await vi.waitFor(() => expect(mgr.engagedClusters()).toContain('delta'), { timeout: 10_000 });
      const delta = await mgr.getCluster('delta');
      expect(delta.config.getCurrentCluster()?.server).toBe(
        `${milo.url}/gateway/apis/resourcemanager.miloapis.com/v1alpha1/projects/delta/control-plane`,
      );
      await delta.client.create({ ...configMap, metadata: { namespace: 'default', name: 'via-gateway' }, data: { ok: 'yes' } });
      expect(await readDirect('delta', 'via-gateway')).toEqual({ ok: 'yes' });
    } finally {
      removeMount();
    }
  });

  test('a project whose control plane is down is retried while the others engage', async () => {
    milo.setControlPlaneServed('down', false);
    try {
      const { mgr, provider } = startManager();
      await project('down', true);
      await project('up', true);
      await vi.waitFor(() => expect(mgr.engagedClusters()).toContain('up'), { timeout: 10_000 });
      await vi.waitFor(() => expect(provider.status('down')?.state).toBe('failed'), { timeout: 10_000 });
      expect(mgr.engagedClusters()).not.toContain('down');
      milo.setControlPlaneServed('down', true);
      await vi.waitFor(() => expect(mgr.engagedClusters()).toContain('down'), { timeout: 10_000 });
    } finally {
      milo.setControlPlaneServed('down', true);
    }
  });
});
