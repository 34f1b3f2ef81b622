/**
 * The import-cycle gate of `npm test`: packages/ has no cycle between source files, between the concept folders of a
 * package, or between packages; plus the finder's own checks against throwaway trees, so a finder that saw nothing
 * could not pass for a clean tree.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { describeCycle, findCycles } from './cycles.js';
import { readImportGraph } from './import-graph.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

describe('packages/', () => {
  test('has no import cycle between files, folders or packages', () => {
    const graph = readImportGraph(repoRoot);
    expect(graph.files.length).toBeGreaterThan(100); // it read the real tree
    const cycles = findCycles(graph);
    expect(cycles.map(describeCycle).join('\n\n')).toBe('');
  });
});

describe('the cycle finder', () => {
  const roots: string[] = [];
  afterAll(() => {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  /** A throwaway repository: `files` maps paths under packages/ to their text; each package gets a package.json. */
  function repo(files: Record<string, string>): string {
    const root = mkdtempSync(join(tmpdir(), 'import-cycles-'));
    roots.push(root);
    for (const [path, text] of Object.entries(files)) {
      const full = join(root, 'packages', path);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, text);
    }
    for (const pkg of new Set(Object.keys(files).map((p) => p.split('/')[0]!))) {
      writeFileSync(join(root, 'packages', pkg, 'package.json'), JSON.stringify({ name: `@multicluster-runtime/${pkg}` }));
    }
    return root;
  }

  test('finds a file cycle made of type-only imports and re-exports, and names each step', () => {
    const root = repo({
      'core/src/a/one.ts': "import type { Two } from '../b/two.js';\nexport type One = Two;\n",
      'core/src/b/two.ts': "export { three } from './three.js';\nexport type Two = string;\n",
      'core/src/b/three.ts': "import type { One } from '../a/one.js';\nexport const three: One | undefined = undefined;\n",
    });
    const cycles = findCycles(readImportGraph(root));
    const files = cycles.filter((c) => c.scale === 'file');
    expect(files).toHaveLength(1);
    expect(files[0]!.loop).toEqual(['packages/core/src/a/one.ts', 'packages/core/src/b/two.ts', 'packages/core/src/b/three.ts']);
    expect(describeCycle(files[0]!)).toContain("packages/core/src/b/three.ts imports '../a/one.js'");
    // The same loop seen from the folders: a -> b -> a.
    expect(cycles.filter((c) => c.scale === 'folder').map((c) => c.loop)).toEqual([['packages/core/src/a', 'packages/core/src/b']]);
  });

  test('finds a folder cycle that no file cycle explains', () => {
    const root = repo({
      'core/src/a/names.ts': 'export type Name = string;\n',
      'core/src/a/uses-b.ts': "import { b } from '../b/b.js';\nexport const a = b;\n",
      'core/src/b/b.ts': "import type { Name } from '../a/names.js';\nexport const b: Name = 'b';\n",
    });
    const cycles = findCycles(readImportGraph(root));
    expect(cycles.map((c) => c.scale)).toEqual(['folder']);
  });

  test('finds a cycle between packages, through subpath imports too', () => {
    const root = repo({
      'core/src/index.ts': "export { helper } from '@multicluster-runtime/envtest/kcp';\n",
      'envtest/src/kcp/index.ts': "import type { X } from '@multicluster-runtime/core';\nexport const helper = (x?: X) => x;\n",
    });
    const cycles = findCycles(readImportGraph(root));
    expect(cycles.map((c) => [c.scale, c.loop])).toEqual([['package', ['packages/core', 'packages/envtest']]]);
  });

  test('ignores tests and test helpers, dynamic imports count', () => {
    const root = repo({
      'core/src/a.ts': "export const a = () => import('./b.js');\n",
      'core/src/b.ts': "import { a } from './a.js';\nexport const b = a;\n",
      'core/src/c.ts': 'export const c = 1;\n',
      'core/src/c.test.ts': "import { d } from './d.test-util.js';\nexport const t = d;\n",
      'core/src/d.test-util.ts': "import { t } from './c.test.js';\nexport const d = t;\n",
    });
    const cycles = findCycles(readImportGraph(root)).filter((c) => c.scale === 'file');
    expect(cycles.map((c) => c.members)).toEqual([['packages/core/src/a.ts', 'packages/core/src/b.ts']]);
  });

  test('a subfolder using its concept folder is no folder cycle; a file directly in src/ stands alone', () => {
    const root = repo({
      'core/src/index.ts': "export { single } from './providers/single.js';\nexport { helper } from './helper.js';\n",
      'core/src/helper.ts': 'export const helper = 1;\n',
      'core/src/providers/errors.ts': 'export class ProviderError extends Error {}\n',
      'core/src/providers/single.ts': "import { set } from './clusters/set.js';\nexport const single = set;\n",
      'core/src/providers/clusters/set.ts':
        "import { ProviderError } from '../errors.js';\nimport { helper } from '../../helper.js';\nexport const set = [ProviderError, helper];\n",
    });
    expect(findCycles(readImportGraph(root))).toEqual([]);
  });

  test('a tree of imports is no cycle', () => {
    const root = repo({
      'core/src/index.ts': "export * from './a/a.js';\nexport * from './b/b.js';\n",
      'core/src/a/a.ts': "import { b } from '../b/b.js';\nexport const a = b;\n",
      'core/src/b/b.ts': 'export const b = 1;\n',
    });
    expect(findCycles(readImportGraph(root))).toEqual([]);
  });
});
