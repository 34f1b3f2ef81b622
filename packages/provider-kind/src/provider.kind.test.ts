/**
 * The provider against real kind: only where the `kind` CLI and a Docker engine are available; elsewhere the suite
 * is skipped and its name says why. It creates a throwaway cluster, so expect a few minutes.
 */
import { randomBytes } from 'node:crypto';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { ClusterNotFoundError, silentLogger } from '@multicluster-runtime/core';
import { noopMetrics } from '@multicluster-runtime/core/metrics';
import type { Aware, Cluster, ClusterName } from '@multicluster-runtime/core';
import { KindProvider } from './index.js';

async function unavailableReason(): Promise<string | undefined> {
  const kind = await execa('kind', ['version'], { reject: false, timeout: 10_000 });
  if (kind.failed) return 'the kind CLI is not on PATH';
  const docker = await execa('docker', ['info', '--format', '{{.ServerVersion}}'], { reject: false, timeout: 15_000 });
  if (docker.failed) return 'no Docker engine answers `docker info`';
  return undefined;
}

const reason = await unavailableReason();
const name = `mcr-e2e-${randomBytes(3).toString('hex')}`;

describe.skipIf(reason !== undefined)(reason ? `real kind suite skipped: ${reason}` : 'KindProvider with real kind', () => {
  beforeAll(async () => {
    await execa('kind', ['create', 'cluster', '--name', name, '--wait', '120s'], { timeout: 300_000 });
  }, 320_000);
  afterAll(async () => {
    await execa('kind', ['delete', 'cluster', '--name', name], { reject: false, timeout: 120_000 });
  }, 130_000);

  test('engages a kind cluster with a working client and disengages it when it is deleted', { timeout: 240_000 }, async () => {
    const engaged = new Map<ClusterName, { cluster: Cluster; signal: AbortSignal }>();
    const aware: Aware = {
      engage(signal, clusterName, cluster) {
        engaged.set(clusterName, { cluster, signal });
        return Promise.resolve();
      },
    };
    const provider = new KindProvider({ namePrefix: name, pollIntervalMs: 500 });
    const stop = new AbortController();
    const done = provider.start(stop.signal, { aware, logger: silentLogger, metrics: noopMetrics });
    try {
      await vi.waitFor(() => expect([...engaged.keys()]).toEqual([name]), { timeout: 60_000, interval: 250 });
      const cluster = await provider.get(name);
      const namespaces = await cluster.client.list({ apiVersion: 'v1', kind: 'Namespace' });
      expect(namespaces.items.map((n) => n.metadata.name)).toContain('kube-system');

      await execa('kind', ['delete', 'cluster', '--name', name], { timeout: 120_000 });
      await vi.waitFor(() => expect(engaged.get(name)?.signal.aborted).toBe(true), { timeout: 30_000, interval: 250 });
      await expect(provider.get(name)).rejects.toBeInstanceOf(ClusterNotFoundError);
    } finally {
      stop.abort();
      await done;
    }
  });
});
