/**
 * The implementations under test and how to start each: multicluster-runtime and the client-node baseline as Node
 * runners (with --expose-gc for the memory scenario), and the Go multicluster-runtime baseline built from
 * tools/go-baseline where Go exists.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ImplSpec } from './runner-process.js';

const run = promisify(execFile);

export const IMPL_NAMES = ['mcr', 'client-node', 'go-mcr'] as const;
export type ImplName = (typeof IMPL_NAMES)[number];

/**
 * Node flags for the bench's own processes (every runner and the fleet server): `MCR_BENCH_CPU_PROF=<dir>` writes a
 * V8 CPU profile of each there (`node --cpu-prof`), `MCR_BENCH_ALLOC_PROF=<dir>` a sampling profile of every
 * allocation, collected or not (where the GC's work comes from), `MCR_BENCH_GC_TRACE=<dir>` every collection with its
 * kind and pause, and `MCR_BENCH_LATENCY_TRACE=<dir>` its event-loop stalls (and, for mcr, where each event's latency
 * goes), to profile first.
 */
export function profileArgs(): string[] {
  const cpu = process.env['MCR_BENCH_CPU_PROF'];
  const preload = (script: string) => ['--import', new URL(`./runners/${script}`, import.meta.url).href];
  return [
    ...(cpu ? ['--cpu-prof', `--cpu-prof-dir=${cpu}`] : []),
    ...(process.env['MCR_BENCH_ALLOC_PROF'] ? preload('alloc-profile.js') : []),
    ...(process.env['MCR_BENCH_GC_TRACE'] ? preload('gc-trace.js') : []),
    ...(process.env['MCR_BENCH_LATENCY_TRACE'] ? ['--import', new URL('./latency-trace.js', import.meta.url).href] : []),
  ];
}

function nodeRunner(name: ImplName, script: string): ImplSpec {
  return {
    name,
    command: process.execPath,
    args: ['--expose-gc', ...profileArgs(), fileURLToPath(new URL(`./runners/${script}`, import.meta.url))],
  };
}

export const mcrImpl = nodeRunner('mcr', 'mcr-runner.js');
export const clientNodeImpl = nodeRunner('client-node', 'client-node-runner.js');

/** tools/go-baseline, from tools/bench/dist. */
const goSourceDir = fileURLToPath(new URL('../../go-baseline/', import.meta.url));
const goBinary = fileURLToPath(new URL('./go-baseline', import.meta.url));

export type GoBaseline = { impl: ImplSpec; goVersion: string; buildMs: number } | { skipped: string };

/**
 * Builds the Go baseline; says why not when it cannot. Go's build cache makes repeat builds take seconds, but a cold
 * cache takes minutes (downloads and compiles client-go), so callers on a time budget pass `timeoutMs`: an
 * interrupted build keeps the packages it finished in the cache, and the next run carries on from there.
 */
export async function buildGoBaseline(timeoutMs = 15 * 60_000): Promise<GoBaseline> {
  let goVersion: string;
  try {
    goVersion = (await run('go', ['version'], { timeout: 30_000 })).stdout.trim();
  } catch {
    return { skipped: 'Go is not installed (no `go` on PATH)' };
  }
  const start = performance.now();
  try {
    await run('go', ['build', '-o', goBinary, '.'], {
      cwd: goSourceDir,
      timeout: timeoutMs,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, GOFLAGS: '-mod=mod' },
    });
  } catch (err) {
    if ((err as { killed?: boolean }).killed) {
      return {
        skipped: `go build of tools/go-baseline did not finish within ${timeoutMs / 1000} s (cold Go build cache; a full \`npm run bench\` or \`go build\` in tools/go-baseline fills it)`,
      };
    }
    const detail = (err as { stderr?: string }).stderr?.trim().split('\n').slice(-5).join('\n') ?? String(err);
    return { skipped: `go build of tools/go-baseline failed: ${detail}` };
  }
  return { impl: { name: 'go-mcr', command: goBinary, args: [] }, goVersion, buildMs: performance.now() - start };
}
