/**
 * An empty npm project outside the repository that depends on packages only through their tarballs, as a user's
 * project depends on what npm publishes: no workspace links, no hoisted monorepo packages. Third-party dependencies
 * come from the npm cache (or the registry when the cache lacks them).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { PackedPackage } from './packed-package.js';
import { readManifest, repoRoot } from './workspace.js';

const run = promisify(execFile);

export class ConsumerProjectError extends Error {
  override readonly name = 'ConsumerProjectError';
  constructor(
    readonly dir: string,
    what: string,
    output: string,
  ) {
    super(`${what} in ${dir}:\n${output.trim().split('\n').slice(-40).join('\n')}`);
  }
}

/** The version the repository itself is tested with (installed), so the consumer gets the same one. */
function installedVersion(name: string): string {
  return readManifest(join(repoRoot, 'node_modules', name)).version;
}

/**
 * Whether this Node needs the README's undici override: client-node 2.x depends on undici 8, which needs Node ≥ 22.19
 * (on Node 20 its import fails). A user on Node 22.19+ or 24 installs with no override, and so does the pack test.
 */
export function nodeNeedsUndiciOverride(version = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major < 22 || (major === 22 && minor < 19);
}

export interface ConsumerProjectOptions {
  /**
   * Whether the project's package.json carries the README's undici override (the repository's `overrides`).
   * Default: only on a Node that needs it ({@link nodeNeedsUndiciOverride}), as a user would.
   */
  undiciOverride?: boolean;
  /** More dev dependencies, at the versions the repository has installed (e.g. vitest for a provider author's suite). */
  devDependencies?: readonly string[];
  /** The environment npm runs in (e.g. a registry's); default: this one without what `npm run` added. */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

/**
 * Creates `dir` with a package.json depending on `packages` (folder names under packages/) as `file:` tarballs, plus
 * @kubernetes/client-node (the peer every user installs); see {@link installConsumerProject}.
 */
export async function createConsumerProject(
  dir: string,
  packages: string[],
  tarballs: ReadonlyMap<string, PackedPackage>,
  options: ConsumerProjectOptions = {},
): Promise<void> {
  const dependencies: Record<string, string> = {};
  const byName = new Map([...tarballs.values()].map((t) => [t.manifest.name, t]));
  // The packages asked for, and the workspace packages they depend on (not published yet, so from their tarballs too).
  const wanted = packages.map((p) => {
    const packed = tarballs.get(p);
    if (!packed) throw new ConsumerProjectError(dir, `no tarball for packages/${p}`, '');
    return packed;
  });
  while (wanted.length > 0) {
    const packed = wanted.pop()!;
    if (dependencies[packed.manifest.name]) continue;
    dependencies[packed.manifest.name] = `file:${packed.tarball}`;
    for (const name of Object.keys(packed.manifest.dependencies ?? {})) {
      const sibling = byName.get(name);
      if (sibling) wanted.push(sibling);
    }
  }
  await installConsumerProject(dir, dependencies, options);
}

/**
 * Creates `dir` with a package.json depending on `dependencies` (name → what npm installs: a range, a `file:`
 * tarball) plus @kubernetes/client-node (the peer every user installs), the undici override the README documents
 * for Node 20 when wanted, and @types/node for type-checking (plus `devDependencies`, at the versions the repository
 * has installed); then runs `npm install`.
 */
export async function installConsumerProject(
  dir: string,
  dependencies: Record<string, string>,
  options: ConsumerProjectOptions = {},
): Promise<void> {
  const { undiciOverride = nodeNeedsUndiciOverride(), env = npmEnv(), signal } = options;
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify(
      {
        name: 'readme-consumer',
        private: true,
        type: 'module',
        dependencies: { '@kubernetes/client-node': `^${installedVersion('@kubernetes/client-node')}`, ...dependencies },
        devDependencies: Object.fromEntries(['@types/node', ...(options.devDependencies ?? [])].map((n) => [n, installedVersion(n)])),
        ...(undiciOverride ? { overrides: readManifest(repoRoot).overrides ?? {} } : {}),
      },
      null,
      2,
    )}\n`,
  );
  writeConsumerTsconfig(dir);
  try {
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: dir,
      signal,
      maxBuffer: 16 * 1024 * 1024,
      env,
    });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new ConsumerProjectError(dir, 'npm install failed', `${e.stdout ?? ''}${e.stderr ?? ''}` || String(err));
  }
}

/** The version of undici that @kubernetes/client-node loads in the project `dir` (resolved from client-node's folder). */
export function undiciVersionOfClientNode(dir: string): string {
  const clientNode = realpathSync(join(dir, 'node_modules/@kubernetes/client-node'));
  return readManifest(dirname(createRequire(join(clientNode, 'package.json')).resolve('undici/package.json'))).version;
}

/**
 * A user's strict tsconfig for the project's own `*.ts` files (consumer files, README examples). They are ES modules
 * (top-level await) only where the project's package.json says `"type": "module"`. `checkDeclarations: false` skips
 * checking declaration files themselves (several seconds), for the quick in-repo run.
 */
export function writeConsumerTsconfig(dir: string, options: { checkDeclarations?: boolean } = {}): void {
  writeFileSync(
    join(dir, 'tsconfig.json'),
    `${JSON.stringify(
      {
        compilerOptions: {
          strict: true,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          verbatimModuleSyntax: true,
          noEmit: true,
          types: ['node'],
          // Our declarations are checked under the consumer's strict settings; other packages' are not our business
          // (client-node's need @types/ws, for one): typecheckProject drops diagnostics in other node_modules.
          skipLibCheck: options.checkDeclarations === false,
        },
        include: ['*.ts'],
      },
      null,
      2,
    )}\n`,
  );
}

/**
 * This process's environment without what `npm test`/`npm run` put there about the repository (npm_package_*,
 * npm_config_* such as the workspace), which would leak into the consumer's install; cache and registry stay.
 */
export function npmEnv(): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig']);
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || keep.has(k.toLowerCase())));
}

/**
 * Imports `specifier` (or each of several, in one process) with plain node from inside the project, as the user's
 * program would: '' when it loads, else node's error output (e.g. ERR_MODULE_NOT_FOUND for an `exports` target
 * missing from the tarball).
 */
export async function importInProject(dir: string, specifier: string | readonly string[], signal?: AbortSignal): Promise<string> {
  const specifiers = typeof specifier === 'string' ? [specifier] : specifier;
  const program = `for (const s of ${JSON.stringify(specifiers)}) await import(s);`;
  try {
    await run(process.execPath, ['--input-type=module', '--eval', program], {
      cwd: dir,
      signal,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: dir },
    });
    return '';
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return `${e.stdout ?? ''}${e.stderr ?? ''}` || String(err);
  }
}

/**
 * `tsc -p` in the project (with the repository's TypeScript): the diagnostics in the project's own files and in
 * @multicluster-runtime packages' declarations, or '' when those type-check.
 */
export async function typecheckProject(dir: string, signal?: AbortSignal): Promise<string> {
  try {
    await run(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', dir, '--pretty', 'false'], {
      cwd: dir,
      signal,
      maxBuffer: 16 * 1024 * 1024,
    });
    return '';
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    const output = `${e.stdout ?? ''}${e.stderr ?? ''}`;
    return output ? ownDiagnostics(output) : String(err);
  }
}

/** tsc's diagnostics (one per `file(line,col): error …` line plus its indented continuation lines) minus third-party ones. */
function ownDiagnostics(output: string): string {
  const kept: string[] = [];
  let keep = true;
  for (const line of output.split('\n')) {
    const file = /^(\S[^(]*)\(\d+,\d+\): /.exec(line)?.[1];
    if (file !== undefined) keep = !file.includes('node_modules/') || file.includes('node_modules/@multicluster-runtime/');
    else if (!/^\s/.test(line)) keep = true;
    if (keep && line.trim() !== '') kept.push(line);
  }
  return kept.join('\n');
}
