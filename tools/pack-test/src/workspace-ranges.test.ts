import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { internalRangeProblems } from './workspace-ranges.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function workspace(manifests: Record<string, object>): string {
  const root = mkdtempSync(join(tmpdir(), 'ranges-'));
  roots.push(root);
  for (const [dir, manifest] of Object.entries(manifests)) {
    mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(join(root, dir, 'package.json'), JSON.stringify(manifest));
  }
  return root;
}

describe('internalRangeProblems', () => {
  it("holds for this repository's manifests", () => {
    expect(internalRangeProblems()).toEqual([]);
  });

  it('reports pinned dev and tool references, a peer range that is not the current version, and graph edges kept or removed wrongly', () => {
    const root = workspace({
      'packages/core': {
        name: '@multicluster-runtime/core',
        version: '0.2.0',
        devDependencies: { '@multicluster-runtime/envtest': '0.1.0' },
        nx: { implicitDependencies: ['!@multicluster-runtime/envtest'] },
      },
      'packages/envtest': { name: '@multicluster-runtime/envtest', version: '0.1.0' },
      'packages/provider-x': {
        name: '@multicluster-runtime/provider-x',
        version: '0.1.0',
        peerDependencies: { '@multicluster-runtime/core': '^0.1.0', '@kubernetes/client-node': '^2.0.1' },
        devDependencies: { '@multicluster-runtime/core': '*', '@multicluster-runtime/envtest': '*' },
        nx: { implicitDependencies: ['!@multicluster-runtime/core'] },
      },
      'tools/demo': { name: '@multicluster-runtime/demo', version: '0.0.0', dependencies: { '@multicluster-runtime/provider-x': '0.1.0' } },
      'examples/app': {
        name: 'app',
        version: '0.0.0',
        dependencies: { '@multicluster-runtime/core': '*', '@multicluster-runtime/unknown': '1.0.0' },
      },
    });
    expect(internalRangeProblems(root)).toEqual([
      { manifest: 'packages/core/package.json', message: 'devDependencies.@multicluster-runtime/envtest is "0.1.0", expected "*"' },
      {
        manifest: 'packages/provider-x/package.json',
        message: 'peerDependencies.@multicluster-runtime/core is "^0.1.0", expected "^0.2.0"',
      },
      {
        manifest: 'packages/provider-x/package.json',
        message: 'nx.implicitDependencies lacks "!@multicluster-runtime/envtest" (@multicluster-runtime/envtest is only a devDependency)',
      },
      {
        manifest: 'packages/provider-x/package.json',
        message: 'nx.implicitDependencies removes "@multicluster-runtime/core", which the package needs at run time',
      },
      { manifest: 'tools/demo/package.json', message: 'dependencies.@multicluster-runtime/provider-x is "0.1.0", expected "*"' },
    ]);
  });
});
