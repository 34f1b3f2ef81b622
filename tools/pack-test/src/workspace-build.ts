/**
 * Makes sure packages' dist/ matches their sources before something runs the built code (README examples, npm
 * pack). `tsc -b` is a no-op when nothing changed, but even that check costs seconds, so it runs only when a
 * source is newer than the package's last build.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './workspace.js';

const run = promisify(execFile);

export class BuildFailedError extends Error {
  override readonly name = 'BuildFailedError';
  constructor(
    readonly projects: string[],
    output: string,
  ) {
    super(`tsc -b ${projects.join(' ')} failed:\n${output.trim().split('\n').slice(0, 30).join('\n')}`);
  }
}

/** Folders under packages/ (e.g. `core`) whose sources changed since their last build, or that were never built. */
export function stalePackages(names: string[], root = repoRoot): string[] {
  return names.filter((name) => {
    const dir = join(root, 'packages', name);
    const built = mtime(join(dir, 'dist/tsconfig.tsbuildinfo'));
    return built === undefined || newestSource(join(dir, 'src')) > built || (mtime(join(dir, 'package.json')) ?? 0) > built;
  });
}

/** Builds the stale ones among `names` (project references build what they depend on). */
export async function buildIfStale(names: string[], signal?: AbortSignal): Promise<string[]> {
  const stale = stalePackages(names);
  if (stale.length === 0) return [];
  const projects = stale.map((n) => `packages/${n}`);
  try {
    await run(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-b', ...projects], {
      cwd: repoRoot,
      signal,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new BuildFailedError(projects, `${e.stdout ?? ''}${e.stderr ?? ''}` || String(err));
  }
  return stale;
}

/**
 * Deletes what a clean build would not produce: dist/ files (`.js`, `.d.ts` and their maps) whose source under src/
 * was deleted or renamed. `tsc -b` never removes them, and `files: ["dist"]` would publish them. Returns the paths
 * removed, relative to the repository root.
 */
export function removeOrphanedOutput(names: string[], root = repoRoot): string[] {
  const removed: string[] = [];
  for (const name of names) {
    const dist = join(root, 'packages', name, 'dist');
    const src = join(root, 'packages', name, 'src');
    if (!existsSync(dist) || !existsSync(src)) continue;
    for (const e of readdirSync(dist, { withFileTypes: true, recursive: true })) {
      const base = /^(.+?)(?:\.d\.ts|\.js)(?:\.map)?$/.exec(e.name)?.[1];
      if (!e.isFile() || base === undefined) continue;
      const sourceDir = join(src, relative(dist, e.parentPath));
      if (existsSync(join(sourceDir, `${base}.ts`)) || existsSync(join(sourceDir, `${base}.js`))) continue;
      rmSync(join(e.parentPath, e.name));
      removed.push(relative(root, join(e.parentPath, e.name)));
    }
  }
  return removed.sort();
}

function mtime(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile() || !e.name.endsWith('.ts') || e.name.endsWith('.test.ts')) continue;
    newest = Math.max(newest, mtime(join(e.parentPath, e.name)) ?? 0);
  }
  return newest;
}
