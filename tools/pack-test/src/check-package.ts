/**
 * What a tarball must satisfy before it is published: every `exports`/`types`/`bin` target is inside it, condition
 * order lets TypeScript and Node pick the right file, no tests or build leftovers ship, every package the shipped
 * code imports is declared (no reliance on packages a workspace happens to hoist) and every runtime dependency is
 * used, and a public package carries the metadata and files npm and its users expect.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importedPackages } from './bare-imports.js';
import type { PackedPackage } from './packed-package.js';

export interface PackageProblem {
  /** Short rule id, stable for tests: `missing-target`, `undeclared-import`, … */
  rule: string;
  message: string;
}

/** Collects every problem; an empty list means the tarball is publishable. */
export function checkPackedPackage(pkg: PackedPackage, options: { relDir?: string } = {}): PackageProblem[] {
  const problems: PackageProblem[] = [];
  const add = (rule: string, message: string) => problems.push({ rule, message });
  const files = new Set(pkg.files);
  const m = pkg.manifest;

  checkExports(m.exports, files, add);
  for (const [field, target] of [
    ['main', m.main],
    ['types', m.types],
  ] as const) {
    if (target !== undefined && !files.has(normalize(target))) add('missing-target', `"${field}": ${target} is not in the tarball`);
  }
  const bins = typeof m.bin === 'string' ? { [m.name]: m.bin } : (m.bin ?? {});
  for (const [name, target] of Object.entries(bins)) {
    if (!files.has(normalize(target))) add('missing-target', `bin "${name}": ${target} is not in the tarball`);
  }

  const exportedTesting = exportedTestingFolders(m.exports);
  for (const f of pkg.files) {
    const testingFolder = /^(?:.*\/)?testing\//.exec(f)?.[0];
    const testHelper = testingFolder !== undefined && !exportedTesting.has(testingFolder);
    if (/\.test(-util)?\.[cm]?[jt]s$|\.test\.d\.[cm]?ts$|\.tsbuildinfo$/.test(f) || testHelper) {
      add('shipped-test-file', `${f} is a test or build artefact and should not ship`);
    }
    // Output of a deleted or renamed source still sits in dist/ until a clean build; it must not ship.
    const built = /^dist\/(.+)\.js$/.exec(f);
    if (built && existsSync(join(pkg.dir, 'src')) && !existsSync(join(pkg.dir, 'src', `${built[1]}.ts`))) {
      add('stale-build-output', `${f} has no source (src/${built[1]}.ts); rebuild from a clean dist/`);
    }
  }

  checkDependencies(pkg, add);
  if (!m.private) checkPublishMetadata(pkg, files, options.relDir, add);
  return problems;
}

type Add = (rule: string, message: string) => void;

function normalize(target: string): string {
  return target.replace(/^\.\//, '');
}

/** Walks `exports`; every string target must exist (patterns must match a file), `types` first, `default` last. */
function checkExports(exports: unknown, files: Set<string>, add: Add): void {
  if (exports === undefined) {
    add('no-exports', 'package.json has no "exports"');
    return;
  }
  const visit = (node: unknown, where: string): void => {
    if (node === null) return; // an explicit "not exported"
    if (typeof node === 'string') {
      if (!node.startsWith('./')) add('bad-target', `${where}: ${node} must start with "./"`);
      const path = normalize(node);
      const found = path.includes('*') ? [...files].some((f) => globToRegExp(path).test(f)) : files.has(path);
      if (!found) add('missing-target', `${where}: ${node} is not in the tarball`);
      return;
    }
    if (Array.isArray(node)) {
      node.forEach((n, i) => visit(n, `${where}[${i}]`));
      return;
    }
    if (typeof node !== 'object') {
      add('bad-target', `${where}: unexpected ${typeof node}`);
      return;
    }
    const keys = Object.keys(node);
    const isConditions = keys.every((k) => !k.startsWith('.'));
    if (isConditions) {
      const typesAt = keys.indexOf('types');
      const firstRuntime = keys.findIndex((k) => k === 'import' || k === 'require' || k === 'default' || k === 'node');
      if (typesAt > firstRuntime && firstRuntime >= 0) {
        add('condition-order', `${where}: "types" must come before "${keys[firstRuntime]}" or TypeScript never sees it`);
      }
      if (keys.includes('default') && keys.at(-1) !== 'default') {
        add('condition-order', `${where}: "default" must be the last condition`);
      }
      const types = (node as Record<string, unknown>).types;
      if (typeof types === 'string' && !/\.d\.[cm]?ts$/.test(types))
        add('bad-target', `${where}.types: ${types} is not a declaration file`);
    } else if (!keys.every((k) => k.startsWith('.'))) {
      add('bad-target', `${where}: mixes subpaths and conditions`);
    }
    for (const k of keys) visit((node as Record<string, unknown>)[k], `${where}["${k}"]`);
  };
  visit(exports, 'exports');
  const root = typeof exports === 'string' || Array.isArray(exports) ? exports : (exports as Record<string, unknown>)['.'];
  const rootIsConditions = typeof exports === 'object' && exports !== null && !Object.keys(exports).some((k) => k.startsWith('.'));
  if (root === undefined && !rootIsConditions) add('no-exports', 'exports has no "." entry');
}

/**
 * The `testing/` folders an export points into (`dist/testing/`, `src/testing/`): a published test kit such as
 * core's acceptance suite, which ships. Any other `testing/` folder holds a package's own test helpers.
 */
function exportedTestingFolders(exports: unknown): Set<string> {
  const folders = new Set<string>();
  const visit = (node: unknown): void => {
    if (typeof node === 'string') {
      const folder = /^(?:.*\/)?testing\//.exec(normalize(node))?.[0];
      if (folder) folders.add(folder);
    } else if (node !== null && typeof node === 'object') {
      for (const v of Object.values(node)) visit(v);
    }
  };
  visit(exports);
  return folders;
}

function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.+')}$`);
}

/** Shipped code may import only what the manifest declares; runtime dependencies must be imported somewhere. */
function checkDependencies(pkg: PackedPackage, add: Add): void {
  const m = pkg.manifest;
  const declared = new Set([
    ...Object.keys(m.dependencies ?? {}),
    ...Object.keys(m.peerDependencies ?? {}),
    ...Object.keys(m.optionalDependencies ?? {}),
  ]);
  const used = new Set<string>();
  for (const f of pkg.files) {
    if (!/\.(m|c)?js$|\.d\.(m|c)?ts$/.test(f) || f.startsWith('src/')) continue;
    for (const name of importedPackages(readFileSync(join(pkg.dir, f), 'utf8'))) {
      used.add(name);
      if (name === m.name || declared.has(name)) continue;
      const dev = m.devDependencies?.[name] !== undefined ? ' (only a devDependency)' : '';
      add('undeclared-import', `${f} imports ${name}, which is not in dependencies or peerDependencies${dev}`);
    }
  }
  for (const name of Object.keys(m.dependencies ?? {})) {
    if (!used.has(name)) add('unused-dependency', `dependency ${name} is never imported by the shipped code`);
  }
}

function checkPublishMetadata(pkg: PackedPackage, files: Set<string>, relDir: string | undefined, add: Add): void {
  const m = pkg.manifest;
  for (const field of ['description', 'license', 'repository', 'engines', 'files'] as const) {
    if (m[field] === undefined) add('missing-field', `"${field}" is required for a published package`);
  }
  if (m.type !== 'module') add('missing-field', '"type" must be "module" (the packages are ESM-only)');
  // false, or the few shipped files that must run when imported (core's Node guard), so bundlers drop the rest.
  if (Array.isArray(m.sideEffects)) {
    for (const f of m.sideEffects) {
      if (!files.has(normalize(f))) add('missing-target', `"sideEffects": ${f} is not in the tarball`);
    }
  } else if (m.sideEffects !== false) {
    add('missing-field', '"sideEffects" must be false, or list the files that run on import, so bundlers can drop unused modules');
  }
  if (!m.engines?.node) add('missing-field', '"engines.node" must state the supported Node versions');
  if (m.name.startsWith('@') && m.publishConfig?.access !== 'public') {
    add('missing-field', 'a scoped package needs "publishConfig": { "access": "public" } or npm publishes it restricted');
  }
  if (relDir !== undefined && (typeof m.repository !== 'object' || m.repository.directory !== relDir)) {
    add('missing-field', `"repository.directory" must be "${relDir}"`);
  }
  if (!files.has('README.md')) add('missing-file', 'README.md is not in the tarball');
  if (!files.has('LICENSE')) add('missing-file', 'LICENSE is not in the tarball');
}
