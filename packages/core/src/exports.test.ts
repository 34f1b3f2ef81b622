/**
 * The package's entry points: the root stays the user's API (at most 150 names, types included), every subpath in
 * package.json is a concept folder's index with its source and build targets, and a name means one thing wherever
 * it is exported. (The pack test imports every subpath from the packed tarball.)
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, string | Record<string, string>>;
};
const subpaths = Object.keys(manifest.exports)
  .filter((k) => k !== '.' && k !== './package.json')
  .map((k) => k.slice(2));
/** Subpaths whose module imports vitest (an optional peer dependency), so not loaded here. */
const needsVitest = new Set(['testing']);

/**
 * The names a module of this package exports, types included, as TypeScript sees them. Files outside src/ are read
 * as empty modules: only the export lists of our own files matter, and client-node's declarations are 1,000 files.
 */
function exportedNames(file: string): string[] {
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
    noLib: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  const srcDir = join(pkgDir, 'src');
  host.getSourceFile = (name, ...rest) =>
    name.startsWith(srcDir) ? read(name, ...rest) : ts.createSourceFile(name, 'export {};', ts.ScriptTarget.ES2022);
  const program = ts.createProgram([file], options, host);
  const checker = program.getTypeChecker();
  const symbol = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
  return checker.getExportsOfModule(symbol).map((s) => s.name);
}

describe('entry points', () => {
  it('the root exports at most 150 names, types included', () => {
    const names = exportedNames(join(pkgDir, 'src/index.ts'));
    // A lower bound too, so the count cannot pass by reading nothing.
    expect(names).toContain('newManager');
    expect(names).toContain('ClusterName');
    expect(names.length).toBeLessThanOrEqual(150);
  });

  it('every subpath is a concept folder with an index, and every folder index is exported', () => {
    for (const sub of subpaths) {
      expect(manifest.exports[`./${sub}`]).toEqual({
        '@multicluster-runtime/source': `./src/${sub}/index.ts`,
        types: `./dist/${sub}/index.d.ts`,
        default: `./dist/${sub}/index.js`,
      });
      expect(existsSync(join(pkgDir, 'src', sub, 'index.ts')), `src/${sub}/index.ts`).toBe(true);
    }
    const folders = readdirSync(join(pkgDir, 'src'), { withFileTypes: true }).filter(
      (d) => d.isDirectory() && existsSync(join(pkgDir, 'src', d.name, 'index.ts')),
    );
    expect(folders.map((d) => d.name).sort()).toEqual([...subpaths].sort());
  });

  it('each subpath loads through the package name, and a name is the same value in every entry point', async () => {
    const seen = new Map<string, { value: unknown; where: string }>();
    const record = (where: string, mod: Record<string, unknown>) => {
      for (const [name, value] of Object.entries(mod)) {
        const first = seen.get(name);
        if (first) expect(value, `${name} in ${where} and ${first.where}`).toBe(first.value);
        else seen.set(name, { value, where });
      }
    };
    record('.', (await import(manifest.name)) as Record<string, unknown>);
    for (const sub of subpaths.filter((s) => !needsVitest.has(s))) {
      const mod = (await import(`${manifest.name}/${sub}`)) as Record<string, unknown>;
      expect(Object.keys(mod).length, sub).toBeGreaterThan(0);
      record(sub, mod);
    }
  });
});
