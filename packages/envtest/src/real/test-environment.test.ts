/**
 * startTestEnvironment's own logic (input checks, retries, cleanup on failure) exercised with small shell-script
 * stand-ins for etcd and kube-apiserver, so it runs on every machine. The real binaries are covered by real.test.ts.
 */
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CrdInstallError, ProcessExitedError, ReadinessTimeoutError, TestEnvironmentOptionsError } from './errors.js';
import { startTestEnvironment } from './test-environment.js';

describe('startTestEnvironment with stand-in binaries', () => {
  let root: string;
  let assetsDir: string;
  let parent: string;
  let attempts: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'mcr-envtest-fake-'));
    assetsDir = join(root, 'assets');
    parent = join(root, 'tmp');
    attempts = join(root, 'attempts');
    await Promise.all([mkdir(assetsDir), mkdir(parent)]);
    await script('kube-apiserver', 'echo "kube-apiserver must not start" >&2; exit 1');
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function script(name: string, body: string): Promise<void> {
    const path = join(assetsDir, name);
    await writeFile(path, `#!/bin/sh\necho "$@" >> '${attempts}'\n${body}\n`);
    await chmod(path, 0o755);
  }

  async function attemptCount(): Promise<number> {
    const text = await readFile(attempts, 'utf8').catch(() => '');
    return text.split('\n').filter(Boolean).length;
  }

  it('retries a start whose port was taken, up to three times, then reports the bind failure', async () => {
    await script('etcd', 'echo \'{"level":"fatal","msg":"listen tcp 127.0.0.1:2379: bind: address already in use"}\' >&2; exit 1');
    const err = await startTestEnvironment({ assetsDir, tmpDir: parent }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProcessExitedError);
    expect((err as Error).message).toContain('etcd exited with code 1 before it became ready');
    expect((err as Error).message).toContain('address already in use');
    expect(await attemptCount()).toBe(3);
    expect(await readdir(parent)).toEqual([]);
  });

  it('does not retry other failures', async () => {
    await script('etcd', 'echo "Error: unknown flag: --unsafe-no-fsync" >&2; exit 2');
    await expect(startTestEnvironment({ assetsDir, tmpDir: parent })).rejects.toThrow(/code 2.*\nError: unknown flag/s);
    expect(await attemptCount()).toBe(1);
    expect(await readdir(parent)).toEqual([]);
  });

  it('gives etcd data, client and peer URLs on loopback only', async () => {
    await script('etcd', 'exit 1');
    await startTestEnvironment({ assetsDir, tmpDir: parent }).catch(() => undefined);
    const args = (await readFile(attempts, 'utf8')).trim().split(' ');
    expect(args).toEqual(expect.arrayContaining([expect.stringMatching(/^--listen-client-urls=http:\/\/127\.0\.0\.1:\d+$/)]));
    expect(args).toEqual(expect.arrayContaining([expect.stringMatching(/^--listen-peer-urls=http:\/\/127\.0\.0\.1:\d+$/)]));
    expect(args).toEqual(expect.arrayContaining([expect.stringMatching(`^--data-dir=${parent}/mcr-envtest-[^/]+/etcd$`)]));
  });

  it('times out a process that never becomes ready, kills it and removes its folder', async () => {
    await script('etcd', 'exec sleep 600.4242');
    const err = await startTestEnvironment({ assetsDir, tmpDir: parent, startTimeoutMs: 500, stopGraceMs: 2_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReadinessTimeoutError);
    expect((err as Error).message).toMatch(/^etcd was not ready within 500 ms \(last check: .*ECONNREFUSED/);
    expect(await readdir(parent)).toEqual([]);
    const sleepers = await pgrepArgs('sleep 600.4242');
    expect(sleepers).toEqual([]);
  });

  it('rejects malformed CRDs, tokens and timeouts before starting anything', async () => {
    await script('etcd', 'exit 1');
    await expect(startTestEnvironment({ assetsDir, crds: [{ metadata: { name: 'x.example.com' }, spec: {} }] })).rejects.toThrow(
      new CrdInstallError('x.example.com', 'spec.group is missing'),
    );
    await expect(startTestEnvironment({ assetsDir, tokens: [{ token: 'a,b', user: 'u' }] })).rejects.toBeInstanceOf(
      TestEnvironmentOptionsError,
    );
    await expect(startTestEnvironment({ assetsDir, startTimeoutMs: -1 })).rejects.toBeInstanceOf(TestEnvironmentOptionsError);
    expect(await attemptCount()).toBe(0);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const reason = new Error('cancelled');
    await expect(startTestEnvironment({ assetsDir, signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(await attemptCount()).toBe(0);
  });
});

/** Processes (of any parent) whose full command line is exactly `args`. */
async function pgrepArgs(args: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.split('\0').filter(Boolean).join(' ') === args) found.push(Number(entry));
  }
  return found;
}
