/**
 * The program as the README runs it (`npm start` is `node dist/main.js`), in a child process: its usage text, its
 * errors for bad flags, and the local run on a fake kcp, stopped with Ctrl-C (SIGINT).
 */
import { KubeConfig } from '@kubernetes/client-node';
import { ApiClient, DiscoveryRESTMapper, Transport } from '@multicluster-runtime/core/client';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { MONGODB, type MongoDBCommunity } from './api.js';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '../dist/main.js');

function start(args: string[]) {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { child, exited, out: () => stdout, err: () => stderr };
}

async function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = start(args);
  const code = await p.exited;
  return { code, stdout: p.out(), stderr: p.err() };
}

describe('npm start (dist/main.js)', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  test('--help prints the usage and exits 0', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: npm start -- \[options\]/);
    expect(stdout).toContain('--kcp-kubeconfig PATH');
  });

  test.each([
    [['--bogus'], "Unknown option '--bogus'"],
    [['--kcp-kubeconfig', 'kcp.kubeconfig'], '--kcp-kubeconfig and --target-kubeconfig go together'],
    [['--duration', 'soon'], '--duration must be a positive number, got "soon"'],
  ])('%j is refused with a message and the usage, exit 2, no stack trace', async (args, message) => {
    const { code, stderr } = await run(args);
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe(message);
    expect(stderr).toContain('Usage: npm start');
    expect(stderr).not.toMatch(/^\s+at /m);
  });

  test('with no kubeconfigs it runs the walk-through locally; status comes back; Ctrl-C stops it cleanly', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kcp-mongodb-main-'));
    dirs.push(dir);
    const p = start(['--kubeconfig-dir', dir]);
    try {
      await expect.poll(p.out, { timeout: 30_000 }).toContain('Ctrl-C stops it.');
      expect(p.out()).toContain(`kubectl --kubeconfig ${join(dir, 'team-a.kubeconfig')} get mongodbcommunity my-database`);

      const kc = new KubeConfig();
      kc.loadFromString(await readFile(join(dir, 'team-a.kubeconfig'), 'utf8'));
      const transport = Transport.forConfig(kc);
      try {
        const teamA = new ApiClient(transport, new DiscoveryRESTMapper(transport));
        await expect
          .poll(async () => (await teamA.get<MongoDBCommunity>(MONGODB, { namespace: 'default', name: 'my-database' })).status, {
            timeout: 30_000,
          })
          .toEqual({ phase: 'Running', version: '6.0.5' });
      } finally {
        await transport.close();
      }
    } finally {
      p.child.kill('SIGINT');
    }
    expect(await p.exited).toBe(0);
    expect(p.err()).not.toContain('reconcile failed');
    expect(p.err()).not.toMatch(/"level":"error"/);
  });
});
