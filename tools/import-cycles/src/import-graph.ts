/**
 * Reads the import graph of the source files under packages/: every `import`, `import type`, `export … from` and
 * dynamic `import()` of each non-test TypeScript file, resolved to a file of the same package (relative specifiers)
 * or to another workspace package (`@multicluster-runtime/<name>[/subpath]`). Type-only imports count: a type cycle
 * ties modules together as firmly for a reader as a value cycle does for the loader. The TypeScript compiler's
 * `preProcessFile` reads the specifiers, so no type-checking (and no build) is needed.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** One import of one file: where it points and the specifier as written. */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
  readonly specifier: string;
}

export interface ImportGraph {
  /** Source files, as paths relative to the root (forward slashes). */
  readonly files: readonly string[];
  /** Imports between those files (same package). */
  readonly fileEdges: readonly ImportEdge[];
  /** Imports from a file of one package to another package; `to` is the package's folder under the root. */
  readonly packageEdges: readonly ImportEdge[];
  /** The package folder of each file, e.g. `packages/core`. */
  readonly packageOf: ReadonlyMap<string, string>;
}

/** Test files and test helpers import freely (a core test may start envtest); only shipped sources are checked. */
export function isCheckedSource(path: string): boolean {
  return path.endsWith('.ts') && !path.endsWith('.d.ts') && !/\.test(-util)?\.ts$/.test(path);
}

/** The import graph of `<root>/packages/*\/src`. */
export function readImportGraph(root: string): ImportGraph {
  const packagesDir = join(root, 'packages');
  const packageByName = new Map<string, string>();
  const files: string[] = [];
  const packageOf = new Map<string, string>();
  for (const entry of readdirSync(packagesDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const pkgDir = join(packagesDir, entry.name);
    const manifest = join(pkgDir, 'package.json');
    if (!existsSync(manifest)) continue;
    const name = (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name;
    const pkg = toPosix(relative(root, pkgDir));
    if (name) packageByName.set(name, pkg);
    const src = join(pkgDir, 'src');
    if (!existsSync(src)) continue;
    for (const file of walk(src)) {
      const path = toPosix(relative(root, file));
      if (!isCheckedSource(path)) continue;
      files.push(path);
      packageOf.set(path, pkg);
    }
  }
  files.sort();
  const known = new Set(files);
  const fileEdges: ImportEdge[] = [];
  const packageEdges: ImportEdge[] = [];
  for (const from of files) {
    const text = readFileSync(join(root, from), 'utf8');
    for (const { fileName: specifier } of ts.preProcessFile(text, true, true).importedFiles) {
      if (specifier.startsWith('.')) {
        const to = resolveRelative(root, from, specifier, known);
        if (to !== undefined && to !== from) fileEdges.push({ from, to, specifier });
        continue;
      }
      const pkg = packageOfSpecifier(specifier, packageByName);
      if (pkg !== undefined && pkg !== packageOf.get(from)) packageEdges.push({ from, to: pkg, specifier });
    }
  }
  return { files, fileEdges, packageEdges, packageOf };
}

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist') yield* walk(path);
    } else if (entry.isFile()) {
      yield path;
    }
  }
}

/** `./x.js` → `x.ts`, `./x` → `x.ts` or `x/index.ts`; undefined when it names no checked source (JSON, tests). */
function resolveRelative(root: string, from: string, specifier: string, known: ReadonlySet<string>): string | undefined {
  const base = toPosix(relative(root, resolve(root, dirname(from), specifier)));
  const stem = base.replace(/\.(m|c)?js$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.mts`, `${stem}/index.ts`, base]) {
    if (known.has(candidate)) return candidate;
  }
  return undefined;
}

function packageOfSpecifier(specifier: string, packageByName: ReadonlyMap<string, string>): string | undefined {
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return packageByName.get(name);
}

function toPosix(path: string): string {
  return path.split(sep).join('/');
}
