/**
 * Whether the undici that @kubernetes/client-node will load can run on this Node. client-node 2.x depends on
 * undici 8, which needs Node ≥ 22.19: on Node 20 importing client-node throws a TypeError from inside undici that says
 * nothing about the fix (the application pins undici 7 with an override, or runs a newer Node). This module finds
 * that undici the way Node will — from client-node's own folder, not core's (core depends on undici 7 itself) —
 * reading package.json files only, so it runs before either package is evaluated (see guard.ts).
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** client-node's undici declares a Node it does not run on; importing client-node would fail. */
export class UndiciNeedsNewerNodeError extends Error {
  override readonly name = 'UndiciNeedsNewerNodeError';
  constructor(
    readonly undiciVersion: string,
    readonly undiciDir: string,
    /** undici's `engines.node`, e.g. `>=22.19.0`. */
    readonly requiredNode: string,
    readonly nodeVersion: string,
  ) {
    const major = nodeVersion.split('.')[0] ?? nodeVersion;
    super(
      `@multicluster-runtime/core cannot start here: @kubernetes/client-node would load undici ${undiciVersion} (${undiciDir}), which needs Node ${requiredNode}, ` +
        `but this is Node ${nodeVersion}: importing it would fail inside undici. Either run Node ${requiredNode.replace(/^>=\s*/, '')} ` +
        `or newer (Node 22 and 24 LTS need nothing else), or stay on Node ${major} and pin undici 7 for the whole ` +
        `application: add to its package.json, then run \`npm install\` again:\n` +
        `  "overrides": { "undici": "^7" }\n` +
        `(yarn: "resolutions"; pnpm: "pnpm": { "overrides": … }.)`,
    );
  }
}

interface FoundPackage {
  /** The package folder, symlinks resolved (Node resolves a package's own imports from there). */
  dir: string;
  version: string;
  dependencies: Record<string, string>;
  engines: Record<string, string>;
}

/** The folder of package `name` as Node finds it from `fromDir` (node_modules lookup; `exports` maps do not matter). */
function findPackage(name: string, fromDir: string): FoundPackage | undefined {
  for (const nodeModules of createRequire(join(fromDir, 'index.js')).resolve.paths(name) ?? []) {
    if (!existsSync(join(nodeModules, name, 'package.json'))) continue;
    const dir = realpathSync(join(nodeModules, name));
    const m = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Partial<FoundPackage>;
    return { dir, version: m.version ?? '?', dependencies: m.dependencies ?? {}, engines: m.engines ?? {} };
  }
  return undefined;
}

/** -1, 0 or 1 as `a` is lower than, equal to or higher than `b` (x.y.z, pre-release tags ignored). */
function compareVersions(a: string, b: string): number {
  const [pa, pb] = [a, b].map((v) => v.split(/[.-]/).slice(0, 3).map(Number));
  for (let i = 0; i < 3; i++) {
    const d = (pa?.[i] ?? 0) - (pb?.[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/**
 * The error importing @kubernetes/client-node from `fromDir` would hit on Node `nodeVersion`, or undefined when it
 * would load (or when client-node is absent, does not depend on undici, or undici states no `>=x.y.z` minimum: then
 * there is nothing this check knows better than the import itself).
 */
export function undiciNodeProblem(fromDir: string, nodeVersion: string = process.versions.node): UndiciNeedsNewerNodeError | undefined {
  const clientNode = findPackage('@kubernetes/client-node', fromDir);
  if (!clientNode?.dependencies['undici']) return undefined;
  const undici = findPackage('undici', clientNode.dir);
  const minimum = /^>=\s*v?(\d+\.\d+\.\d+)$/.exec(undici?.engines['node']?.trim() ?? '')?.[1];
  if (!undici || !minimum || compareVersions(nodeVersion, minimum) >= 0) return undefined;
  return new UndiciNeedsNewerNodeError(undici.version, undici.dir, `>=${minimum}`, nodeVersion);
}
