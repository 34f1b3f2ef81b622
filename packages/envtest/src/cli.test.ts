import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { KubeHttpClient } from './conformance/http-client.js';
import type { ApiServer } from './index.js';
import { runCli } from './cli.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

function capture(): { io: { out(l: string): void; err(l: string): void }; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l) => out.push(l), err: (l) => err.push(l) }, out, err };
}

describe('envtest CLI', () => {
  test('serve writes a working kubeconfig, runs until aborted, then stops the server', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'envtest-cli-'));
    dirs.push(dir);
    const file = join(dir, 'kc');
    const { io, out } = capture();
    const controller = new AbortController();
    let servers: readonly ApiServer[] = [];
    const ready = new Promise<void>((resolve) => {
      void runCli(['serve', '--kubeconfig', file], io, controller.signal, (s) => {
        servers = s;
        resolve();
      }).then((code) => out.push(`exit ${code}`));
    });
    await ready;
    const client = new KubeHttpClient(await readFile(file, 'utf8'));
    try {
      expect((await client.get('/api/v1/namespaces/default')).status).toBe(200);
    } finally {
      client.close();
    }
    expect(out.join('\n')).toContain(file);
    controller.abort();
    await expect.poll(() => out).toContain('exit 0');
    await expect(servers[0]!.restart()).rejects.toThrow(/after close/);
  });

  test('--clusters N writes one kubeconfig per cluster into a folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'envtest-cli-'));
    dirs.push(dir);
    const folder = join(dir, 'fleet');
    const { io } = capture();
    const controller = new AbortController();
    const done = runCli(['serve', '--clusters', '3', '--kubeconfig', folder], io, controller.signal, () => controller.abort());
    expect(await done).toBe(0);
    expect((await readdir(folder)).sort()).toEqual(['cluster-0.kubeconfig', 'cluster-1.kubeconfig', 'cluster-2.kubeconfig']);
  });

  test.each([[['serve', '--clusters', '0']], [['serve', '--port', 'x']], [['frobnicate']], [['serve', '--bogus']]])(
    '%j is a usage error (exit 2)',
    async (argv) => {
      const { io, err } = capture();
      expect(await runCli(argv, io, new AbortController().signal)).toBe(2);
      expect(err.join('\n')).toContain('Usage: envtest serve');
    },
  );

  test('--help prints the usage', async () => {
    const { io, out } = capture();
    expect(await runCli(['--help'], io, new AbortController().signal)).toBe(0);
    expect(out.join('\n')).toContain('cluster-<i>.kubeconfig');
  });
});
