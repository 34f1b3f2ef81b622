/**
 * The tarball checker against packages built in a temp folder from the real manifests, each then broken one way:
 * a checker that passes a broken package would let the pack test pass too.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPackedPackage } from './check-package.js';
import { importedPackages } from './bare-imports.js';
import { packPackage, type PackedPackage } from './packed-package.js';
import { readManifest, repoRoot, type Manifest } from './workspace.js';

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'pack-check-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A package folder holding `manifest` and `files`, packed with the real `npm pack`. */
async function pack(manifest: Manifest, files: Record<string, string>): Promise<PackedPackage> {
  const dir = mkdtempSync(join(work, 'pkg-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const out = join(dir, '.out');
  mkdirSync(out);
  return packPackage(dir, out);
}

const realProvider = () => readManifest(join(repoRoot, 'packages/provider-kubeconfig'));
const goodFiles = {
  'README.md': '# x\n',
  LICENSE: 'Apache-2.0\n',
  'src/index.ts': "export { watch } from 'chokidar';\n",
  'src/index.test.ts': 'test\n',
  'dist/index.js': "export { watch } from 'chokidar';\nimport '@multicluster-runtime/core';\n",
  'dist/index.d.ts': "export { watch } from 'chokidar';\n",
};
const rules = (p: PackedPackage) => checkPackedPackage(p, { relDir: 'packages/provider-kubeconfig' }).map((x) => x.rule);

describe('checkPackedPackage', () => {
  it('accepts the real provider manifest with the files it names', async () => {
    const packed = await pack(realProvider(), goodFiles);
    expect(packed.files).not.toContain('src/index.test.ts');
    expect(checkPackedPackage(packed, { relDir: 'packages/provider-kubeconfig' })).toEqual([]);
  });

  it('reports exports targets left out by "files"', async () => {
    const m = realProvider();
    m.files = ['src', 'README.md'];
    const problems = checkPackedPackage(await pack(m, goodFiles));
    expect(problems.filter((p) => p.rule === 'missing-target').map((p) => p.message)).toEqual(
      expect.arrayContaining([expect.stringContaining('./dist/index.d.ts'), expect.stringContaining('./dist/index.js')]),
    );
  });

  it('reports exports that point at files that do not exist', async () => {
    const m = realProvider();
    m.exports = { '.': { types: './dist/main.d.ts', default: './dist/main.js' } };
    expect(rules(await pack(m, goodFiles))).toEqual(['missing-target', 'missing-target']);
  });

  it('reports "types" after "default" and "default" before other conditions', async () => {
    const m = realProvider();
    m.exports = { '.': { default: './dist/index.js', types: './dist/index.d.ts' } };
    expect(rules(await pack(m, goodFiles))).toEqual(['condition-order', 'condition-order']);
  });

  it('reports a missing bin target and a missing "." entry', async () => {
    const m = realProvider();
    m.bin = { tool: './bin/tool.js' };
    m.exports = { './package.json': './package.json' };
    expect(rules(await pack(m, goodFiles)).sort()).toEqual(['missing-target', 'no-exports']);
  });

  it('reports imports of packages that are only devDependencies or not declared, and unused dependencies', async () => {
    const m = realProvider();
    m.dependencies = { yaml: '^2.0.0' };
    const files = { ...goodFiles, 'src/extra.ts': '', 'dist/extra.js': "import { execa } from 'execa';\n" };
    const problems = checkPackedPackage(await pack(m, files));
    expect(problems.map((p) => p.message).sort()).toEqual([
      'dependency yaml is never imported by the shipped code',
      'dist/extra.js imports execa, which is not in dependencies or peerDependencies',
      'dist/index.d.ts imports chokidar, which is not in dependencies or peerDependencies',
      'dist/index.js imports chokidar, which is not in dependencies or peerDependencies',
    ]);
    m.peerDependencies = {};
    const noCore = checkPackedPackage(await pack(m, goodFiles)).map((p) => p.message);
    expect(noCore).toContain(
      'dist/index.js imports @multicluster-runtime/core, which is not in dependencies or peerDependencies (only a devDependency)',
    );
  });

  it('reports shipped tests, build info and output whose source is gone', async () => {
    const m = realProvider();
    m.files = ['dist', 'src'];
    const files = {
      ...goodFiles,
      'dist/tsconfig.tsbuildinfo': '{}',
      'dist/old.js': 'export {};\n',
      'dist/index.test.js': 'export {};\n',
    };
    expect(rules(await pack(m, files)).sort()).toEqual([
      'shipped-test-file',
      'shipped-test-file',
      'shipped-test-file',
      'stale-build-output',
    ]);
  });

  it('ships a testing/ folder an export points into, and reports any other', async () => {
    const m = realProvider();
    m.files = ['dist', 'src', '!src/**/*.test.ts'];
    m.exports = {
      ...(m.exports as Record<string, unknown>),
      './testing': {
        '@multicluster-runtime/source': './src/testing/index.ts',
        types: './dist/testing/index.d.ts',
        default: './dist/testing/index.js',
      },
    };
    const files = {
      ...goodFiles,
      'dist/testing/index.js': 'export {};\n',
      'dist/testing/index.d.ts': 'export {};\n',
      'src/testing/index.ts': 'export {};\n',
      'src/cache/testing/fake.ts': 'export {};\n',
    };
    const problems = checkPackedPackage(await pack(m, files));
    expect(problems.map((p) => `${p.rule}: ${p.message}`)).toEqual([
      'shipped-test-file: src/cache/testing/fake.ts is a test or build artefact and should not ship',
    ]);
  });

  it('holds public packages to the publish metadata and files, private ones not', async () => {
    const m = realProvider();
    delete m.publishConfig;
    delete m.engines;
    m.sideEffects = true;
    const files: Record<string, string> = { ...goodFiles };
    delete files['LICENSE'];
    const problems = checkPackedPackage(await pack(m, files), { relDir: 'packages/elsewhere' });
    expect(problems.map((p) => p.rule).sort()).toEqual([
      'missing-field',
      'missing-field',
      'missing-field',
      'missing-field',
      'missing-field',
      'missing-file',
    ]);
    expect(checkPackedPackage(await pack({ ...m, private: true }, files))).toEqual([]);
  });

  it('accepts "sideEffects" naming shipped files, and flags one that is not shipped', async () => {
    const m = { ...realProvider(), sideEffects: ['./dist/index.js'] };
    expect(checkPackedPackage(await pack(m, goodFiles))).toEqual([]);
    m.sideEffects = ['./dist/guard.js'];
    expect(rules(await pack(m, goodFiles))).toEqual(['missing-target']);
  });
});

describe('importedPackages', () => {
  it('reads imports, re-exports, dynamic imports, import types and type references, not comments or strings', () => {
    const source = [
      "/** import { x } from 'in-a-comment' */ import a from 'yaml';",
      "export * from '@scope/pkg/sub/path'; const url = 'https://from.example';  // from 'also-comment'",
      "const m = await import('undici'); import 'node:fs'; import p from 'path'; import fsp from 'fs/promises';",
      '/// <reference types="node" />',
      "type T = import('chokidar').FSWatcher; export { y } from './local.js';",
    ].join('\n');
    expect(importedPackages(source)).toEqual(['@scope/pkg', 'chokidar', 'undici', 'yaml']);
  });
});
