import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { ClusterNotFoundError, silentLogger } from '@multicluster-runtime/core';
import { noopMetrics } from '@multicluster-runtime/core/metrics';
import { ProviderAlreadyStartedError } from '@multicluster-runtime/core/providers';
import type { Aware, Cluster, ClusterName, ProviderContext } from '@multicluster-runtime/core';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { KindProvider, type KindProviderOptions } from './index.js';

const fakeKind = resolve(dirname(fileURLToPath(import.meta.url)), '../../../tools/fake-kind/bin/kind');

/** Records engagements the way a manager would see them. */
class RecordingAware implements Aware {
  readonly engaged = new Map<ClusterName, { cluster: Cluster; signal: AbortSignal }>();
  readonly history: string[] = [];
  engage(signal: AbortSignal, name: ClusterName, cluster: Cluster): Promise<void> {
    this.engaged.set(name, { cluster, signal });
    this.history.push(`engage ${name}`);
    signal.addEventListener('abort', () => {
      this.history.push(`disengage ${name}`);
      if (this.engaged.get(name)?.cluster === cluster) this.engaged.delete(name);
    });
    return Promise.resolve();
  }
  names(): string[] {
    return [...this.engaged.keys()].sort();
  }

  /** A start context engaging through this Aware: no host cluster unless given, silent logs, no metrics. */
  context(extra: Partial<ProviderContext> = {}): ProviderContext {
    return { aware: this, logger: silentLogger, metrics: noopMetrics, ...extra };
  }
}

let dir: string;
let servers: ApiServer[];
const running: Array<{ stop: AbortController; done: Promise<void> }> = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcr-kind-'));
  servers = await Promise.all([startApiServer(), startApiServer(), startApiServer()]);
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  for (const r of running.splice(0)) {
    r.stop.abort();
    await r.done;
  }
});

function writeState(name: string, state: { clusters: Record<string, string>; behaviour?: Record<string, unknown> }): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(state));
  return path;
}

function run(statePath: string, options: KindProviderOptions = {}) {
  const provider = new KindProvider({
    binary: fakeKind,
    env: { FAKE_KIND_STATE: statePath },
    pollIntervalMs: 100,
    timeoutMs: 5_000,
    ...options,
  });
  const aware = new RecordingAware();
  const stop = new AbortController();
  const done = provider.start(stop.signal, aware.context());
  running.push({ stop, done });
  return { provider, aware, stop, done };
}

const nsKind = { apiVersion: 'v1', kind: 'Namespace' };

describe('KindProvider with the kind CLI', () => {
  test('engages every kind cluster under its name, with a working client', async () => {
    const state = writeState('basic', { clusters: { alpha: servers[0]!.kubeconfig(), beta: servers[1]!.kubeconfig() } });
    const { provider, aware } = run(state);
    await vi.waitFor(() => expect(aware.names()).toEqual(['alpha', 'beta']), { timeout: 10_000 });
    const beta = await provider.get('beta');
    const namespaces = await beta.apiReader.list(nsKind);
    expect(namespaces.items.map((n) => n.metadata.name)).toContain('default');
    expect(provider.status('alpha')?.state).toBe('engaged');
  });

  test('a second start is refused with ProviderAlreadyStartedError and leaves the first running', async () => {
    const { provider, aware } = run(writeState('twice', { clusters: { alpha: servers[0]!.kubeconfig() } }));
    await expect(provider.start(new AbortController().signal, new RecordingAware().context())).rejects.toBeInstanceOf(
      ProviderAlreadyStartedError,
    );
    await vi.waitFor(() => expect(aware.names()).toEqual(['alpha']), { timeout: 10_000 });
  });

  test('filters by name prefix', async () => {
    const state = writeState('prefix', { clusters: { 'team-a': servers[0]!.kubeconfig(), other: servers[1]!.kubeconfig() } });
    const { aware, provider } = run(state, { namePrefix: 'team-' });
    await vi.waitFor(() => expect(aware.names()).toEqual(['team-a']), { timeout: 10_000 });
    await vi.waitFor(() => expect(provider.pollStatus().polls).toBeGreaterThan(2), { timeout: 10_000 });
    expect(aware.history).not.toContain('engage other');
  });

  test('disengages deleted clusters and re-engages recreated ones with a new instance', async () => {
    const path = join(dir, 'lifecycle.json');
    writeFileSync(path, JSON.stringify({ clusters: { alpha: servers[0]!.kubeconfig(), beta: servers[1]!.kubeconfig() } }));
    const { provider, aware } = run(path);
    await vi.waitFor(() => expect(aware.names()).toEqual(['alpha', 'beta']), { timeout: 10_000 });
    const oldAlpha = aware.engaged.get('alpha')!;

    // beta deleted; alpha recreated under the same name (new server, new kubeconfig)
    writeFileSync(path, JSON.stringify({ clusters: { alpha: servers[2]!.kubeconfig() } }));
    await vi.waitFor(
      () => {
        expect(aware.names()).toEqual(['alpha']);
        expect(aware.engaged.get('alpha')!.cluster).not.toBe(oldAlpha.cluster);
      },
      { timeout: 10_000 },
    );
    expect(oldAlpha.signal.aborted).toBe(true);
    await expect(provider.get('beta')).rejects.toBeInstanceOf(ClusterNotFoundError);
    expect((await provider.get('alpha')).config.getCurrentCluster()?.server).toBe(servers[2]!.url);
  });

  test('a missing CLI is reported and retried, never thrown', async () => {
    const { provider } = run(writeState('missing', { clusters: {} }), { binary: join(dir, 'no-such-kind') });
    await vi.waitFor(() => expect(provider.pollStatus().polls).toBeGreaterThanOrEqual(3), { timeout: 10_000 });
    expect(provider.pollStatus().lastError).toMatch(/kind CLI not found/);
  });

  test.each([
    [
      'fails',
      { exitCode: 1, stderr: 'ERROR: failed to list clusters: docker is not running\n' },
      /exit code 1: ERROR: failed to list clusters/,
    ],
    ['prints garbage', { stdout: '<html>proxy error</html>\n' }, /unexpected output/],
    ['hangs', { hang: true }, /did not finish within 5000 ms/],
    // The CLI timeout stays at run()'s 5 s: a node-based fake CLI can take over a second to answer on a busy machine,
    // and a shorter timeout made every poll of a healthy CLI time out too.
  ])('a CLI that %s keeps engaged clusters and recovers', { timeout: 60_000 }, async (_name, behaviour, message) => {
    const path = join(dir, `flaky-${_name}.json`);
    const clusters = { alpha: servers[0]!.kubeconfig() };
    writeFileSync(path, JSON.stringify({ clusters }));
    const { provider, aware } = run(path);
    await vi.waitFor(() => expect(aware.names()).toEqual(['alpha']), { timeout: 10_000 });

    writeFileSync(path, JSON.stringify({ clusters, behaviour: { 'get clusters': behaviour } }));
    await vi.waitFor(() => expect(provider.pollStatus().lastError).toMatch(message), { timeout: 10_000 });
    expect(aware.names()).toEqual(['alpha']);

    writeFileSync(path, JSON.stringify({ clusters }));
    await vi.waitFor(() => expect(provider.pollStatus().lastError).toBeUndefined(), { timeout: 10_000 });
    expect(aware.history).toEqual(['engage alpha']);
  });

  test('one bad kubeconfig affects only its cluster, and a hostile exec plugin never runs', async () => {
    const marker = join(dir, 'exec-ran');
    const plugin = join(dir, 'plugin.sh');
    writeFileSync(plugin, `#!/bin/sh\ntouch '${marker}'\n`);
    chmodSync(plugin, 0o755);
    const hostile = servers[1]!
      .kubeconfig()
      .replace(
        /user:\n(\s+)client-certificate-data:.*\n\s+client-key-data:.*\n/,
        (_m, indent: string) =>
          `user:\n${indent}exec:\n${indent}  apiVersion: client.authentication.k8s.io/v1\n${indent}  command: ${plugin}\n`,
      );
    expect(hostile).toContain('exec:');
    const state = writeState('bad', {
      clusters: { good: servers[0]!.kubeconfig(), garbled: 'clusters: [unclosed', hostile, broken: servers[2]!.kubeconfig() },
      behaviour: { 'get kubeconfig broken': { exitCode: 1, stderr: 'ERROR: no such cluster\n' } },
    });
    const { provider, aware } = run(state);
    await vi.waitFor(
      () => {
        expect(aware.names()).toEqual(['good']);
        expect(provider.status('hostile')).toMatchObject({ state: 'rejected', reason: expect.stringMatching(/exec/) });
        expect(provider.status('garbled')).toMatchObject({
          state: 'invalid',
          reason: expect.stringMatching(/not a kubeconfig|not valid YAML/),
        });
        expect(provider.status('broken')).toMatchObject({ state: 'invalid', reason: expect.stringMatching(/no such cluster/) });
      },
      { timeout: 10_000 },
    );
    expect(existsSync(marker)).toBe(false);
  });

  test('stopping the provider disengages every cluster', async () => {
    const state = writeState('stop', { clusters: { alpha: servers[0]!.kubeconfig() } });
    const { aware, stop, done } = run(state);
    await vi.waitFor(() => expect(aware.names()).toEqual(['alpha']), { timeout: 10_000 });
    stop.abort();
    await done;
    expect(aware.names()).toEqual([]);
    expect(aware.history).toEqual(['engage alpha', 'disengage alpha']);
  });
});
