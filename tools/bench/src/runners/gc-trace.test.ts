/** MCR_BENCH_GC_TRACE: a real Node process with the preload writes every collection it made, with kind and pause. */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, expect, test } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const preload = join(root, 'tools/bench/dist/runners/gc-trace.js');

beforeAll(async () => {
  // The preload runs as built JavaScript (a child process cannot load TypeScript on Node 20).
  await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-b', join(root, 'tools/bench/tsconfig.json')], {
    cwd: root,
  });
}, 240_000);

test('a runner started with the preload writes gc-<pid>.json with each collection it made', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mcr-gc-trace-'));
  try {
    // Two forced full collections, and enough short-lived garbage for young ones.
    // Node reports a collection from an immediate after it, so the script lets the loop turn before it exits.
    const script =
      'let keep = []; for (let i = 0; i < 2e5; i++) { keep.push({ i }); if (keep.length > 1000) keep = []; } gc(); gc(); setImmediate(() => setImmediate(() => {}));';
    await run(process.execPath, ['--expose-gc', '--import', preload, '-e', script], { env: { ...process.env, MCR_BENCH_GC_TRACE: dir } });
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^gc-\d+\.json$/);
    const { collections, scheduler } = JSON.parse(await readFile(join(dir, files[0]!), 'utf8')) as {
      collections: { kind: string; durationMs: number; youngBytes: number; oldUsedBytes: number }[];
      scheduler?: { cpuMs: number; runnableWaitMs: number; involuntarySwitches: number; voluntarySwitches: number };
    };
    if (process.platform === 'linux') {
      expect(scheduler?.cpuMs).toBeGreaterThan(0);
      expect(scheduler?.runnableWaitMs).toBeGreaterThanOrEqual(0);
      expect(Number.isInteger(scheduler?.involuntarySwitches)).toBe(true);
    }
    expect(collections.filter((c) => c.kind === 'major').length).toBeGreaterThanOrEqual(2);
    expect(collections.some((c) => c.kind === 'minor')).toBe(true);
    for (const c of collections) {
      expect(c.durationMs).toBeGreaterThanOrEqual(0);
      expect(c.youngBytes).toBeGreaterThan(0);
      expect(c.oldUsedBytes).toBeGreaterThan(0);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
