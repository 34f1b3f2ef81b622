/**
 * One controller across two kinds of fleet: kubeconfig Secrets on the host cluster and kubeconfig files on disk,
 * composed by MultiProvider under a real manager, against in-memory API servers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClusterNotFoundError, controllerManagedBy, isNotFound, newManager, silentLogger } from '@multicluster-runtime/core';
import { loadUntrustedKubeconfig } from '@multicluster-runtime/core/kubeconfig';
import type { Cluster, KubeObject, Request } from '@multicluster-runtime/core';
import type { MultiClusterManager } from '@multicluster-runtime/core/manager';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { KubeconfigFileProvider, KubeconfigSecretProvider } from '@multicluster-runtime/provider-kubeconfig';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { MultiProvider } from './multi-provider.js';

const configMapKind = { apiVersion: 'v1', kind: 'ConfigMap' };
let host: ApiServer;
let members: ApiServer[];
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcr-multi-'));
  const servers = await Promise.all(Array.from({ length: 4 }, () => startApiServer()));
  host = servers[0]!;
  members = servers.slice(1);
});

afterAll(async () => {
  await Promise.all([host, ...members].map((s) => s?.close()));
  rmSync(dir, { recursive: true, force: true });
});

function configMap(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { team: name } };
}

async function labelOf(cluster: Cluster, name: string): Promise<string | undefined> {
  const cm = await cluster.client.get(configMapKind, { namespace: 'default', name });
  return cm.metadata.labels?.['reconciled'];
}

test('one controller reconciles ConfigMaps in clusters from Secrets and from files', async () => {
  const fleet = new MultiProvider();
  const secrets = new KubeconfigSecretProvider({ namespace: 'default', logger: silentLogger, retry: { initialMs: 50, maxMs: 500 } });
  const files = new KubeconfigFileProvider({ paths: [join(dir, '*.kubeconfig')], debounceMs: 50, logger: silentLogger });
  await fleet.add('secrets', secrets);
  await fleet.add('files', files);

  const mgr: MultiClusterManager = newManager(loadUntrustedKubeconfig(host.kubeconfig()), fleet, { logger: silentLogger });
  // An index registered before start reaches every provider's clusters exactly once (a second time would fail).
  await mgr
    .getFieldIndexer()
    .indexField(configMapKind, 'data.team', (obj) => [String((obj['data'] as Record<string, string> | undefined)?.['team'] ?? '')]);

  const reconciled: string[] = [];
  controllerManagedBy(mgr)
    .named('label-configmaps')
    .for(configMapKind)
    .complete(async (req: Request, ctx) => {
      const cluster = await mgr.getCluster(req.clusterName);
      let cm: KubeObject;
      try {
        cm = await cluster.client.get(configMapKind, req, { signal: ctx.signal });
      } catch (err) {
        if (isNotFound(err)) return;
        throw err;
      }
      reconciled.push(`${req.clusterName}/${req.name}`);
      if (cm.metadata.labels?.['reconciled'] === 'true') return;
      await cluster.client.patch(
        configMapKind,
        req,
        { type: 'merge', body: { metadata: { labels: { reconciled: 'true' } } } },
        { signal: ctx.signal },
      );
    });

  const stop = new AbortController();
  const done = mgr.start(stop.signal);
  try {
    const local = mgr.getLocalCluster();
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    await local.client.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'alpha', namespace: 'default', labels: { 'sigs.k8s.io/multicluster-runtime-kubeconfig': 'true' } },
      data: { kubeconfig: b64(members[0]!.kubeconfig()) },
    });
    const betaFile = join(dir, 'beta.kubeconfig');
    await writeFile(betaFile, members[1]!.kubeconfig({ contextName: 'beta' }));

    const alpha = 'secrets#alpha';
    const beta = `files#${betaFile}+beta`;
    await expect.poll(() => mgr.engagedClusters().sort(), { timeout: 15_000 }).toEqual([beta, alpha].sort());

    for (const [name, member] of [
      [alpha, 0],
      [beta, 1],
    ] as const) {
      const cluster = await mgr.getCluster(name);
      await cluster.client.create(configMap(`cm-${member}`));
    }
    for (const [name, member] of [
      [alpha, 0],
      [beta, 1],
    ] as const) {
      const cluster = await mgr.getCluster(name);
      await expect.poll(() => labelOf(cluster, `cm-${member}`), { timeout: 15_000 }).toBe('true');
      expect(reconciled).toContain(`${name}/cm-${member}`);
      // The index registered before start serves reads from this cluster's cache.
      const listed = await cluster.cache.list(configMapKind, { fieldSelector: { 'data.team': `cm-${member}` } });
      expect(listed.items.map((i) => i.metadata.name)).toEqual([`cm-${member}`]);
    }

    // A file added at runtime brings a cluster the same controller reconciles.
    const gammaFile = join(dir, 'gamma.kubeconfig');
    await writeFile(gammaFile, members[2]!.kubeconfig({ contextName: 'gamma' }));
    const gamma = `files#${gammaFile}+gamma`;
    await expect.poll(() => mgr.engagedClusters(), { timeout: 15_000 }).toContain(gamma);
    const gammaCluster = await mgr.getCluster(gamma);
    await gammaCluster.client.create(configMap('cm-2'));
    await expect.poll(() => labelOf(gammaCluster, 'cm-2'), { timeout: 15_000 }).toBe('true');

    // Sources going away disengage their clusters; the rest keep going.
    await local.client.delete({ apiVersion: 'v1', kind: 'Secret' }, { namespace: 'default', name: 'alpha' });
    await rm(gammaFile);
    await expect.poll(() => mgr.engagedClusters(), { timeout: 15_000 }).toEqual([beta]);
    await expect(mgr.getCluster(alpha)).rejects.toBeInstanceOf(ClusterNotFoundError);
    await expect(mgr.getCluster(gamma)).rejects.toBeInstanceOf(ClusterNotFoundError);

    // Removing a whole provider at runtime takes its clusters with it.
    await fleet.remove('files');
    await expect.poll(() => mgr.engagedClusters(), { timeout: 15_000 }).toEqual([]);
    expect(reconciled).toEqual(expect.arrayContaining([`${alpha}/cm-0`, `${beta}/cm-1`, `${gamma}/cm-2`]));
  } finally {
    stop.abort();
    await done;
  }
});

test("members' statuses under composed names reach the manager's fleetReadiness and /debug/clusters", async () => {
  const fleet = new MultiProvider();
  await fleet.add(
    'secrets',
    new KubeconfigSecretProvider({ namespace: 'default', logger: silentLogger, retry: { initialMs: 50, maxMs: 500 } }),
  );
  const mgr = newManager(loadUntrustedKubeconfig(host.kubeconfig()), fleet, {
    logger: silentLogger,
    healthProbeBindAddress: '127.0.0.1:0',
    fleetReadiness: 'engaged',
  });
  const stop = new AbortController();
  const done = mgr.start(stop.signal);
  const secret = (name: string, kubeconfig: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'default', labels: { 'sigs.k8s.io/multicluster-runtime-kubeconfig': 'true' } },
    data: { kubeconfig: Buffer.from(kubeconfig).toString('base64') },
  });
  try {
    const local = mgr.getLocalCluster();
    await local.client.create(secret('gamma', members[2]!.kubeconfig()));
    await local.client.create(secret('broken', 'clusters: [unclosed'));
    await expect.poll(() => fleet.status('secrets#gamma')?.state, { timeout: 15_000 }).toBe('engaged');
    await expect.poll(() => fleet.statuses().get('secrets#broken')?.state, { timeout: 15_000 }).toBe('invalid');
    const address = mgr.addresses().healthProbe!;
    const readyz = async () => {
      const res = await fetch(`http://${address}/readyz/fleet`);
      return `${res.status} ${await res.text()}`;
    };
    await expect.poll(readyz, { timeout: 15_000 }).toMatch(/^500 .*1 cluster not engaged: secrets#broken \(invalid\)/s);
    const debug = (await (await fetch(`http://${address}/debug/clusters`)).json()) as {
      clusters: Array<{ name: string; state?: string; engaged: boolean }>;
    };
    expect(debug.clusters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'secrets#gamma', state: 'engaged', engaged: true }),
        expect.objectContaining({ name: 'secrets#broken', state: 'invalid', engaged: false }),
      ]),
    );
    await local.client.delete({ apiVersion: 'v1', kind: 'Secret' }, { namespace: 'default', name: 'broken' });
    await expect.poll(readyz, { timeout: 15_000 }).toBe('200 ok');
  } finally {
    stop.abort();
    await done;
  }
});
