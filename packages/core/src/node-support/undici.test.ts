import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UndiciNeedsNewerNodeError, undiciNodeProblem } from './undici.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** A project folder with the given package.json files (path under the root → manifest); returns the root. */
function project(manifests: Record<string, object>): string {
  const root = mkdtempSync(join(tmpdir(), 'undici-check-'));
  roots.push(root);
  for (const [path, manifest] of Object.entries(manifests)) {
    mkdirSync(join(root, path), { recursive: true });
    writeFileSync(join(root, path, 'package.json'), JSON.stringify(manifest));
  }
  return root;
}

const clientNode = { name: '@kubernetes/client-node', version: '2.0.1', dependencies: { undici: '^8.7.0' } };
const undici8 = { name: 'undici', version: '8.12.4', engines: { node: '>=22.19.0' } };
const undici7 = { name: 'undici', version: '7.30.2', engines: { node: '>=20.18.1' } };
const core = { name: '@multicluster-runtime/core', version: '0.1.0', dependencies: { undici: '^7.30.2' } };
/** Where core's guard runs from in an installed project. */
const coreDist = (root: string) => join(root, 'node_modules/@multicluster-runtime/core/dist/node-support');

describe('undiciNodeProblem', () => {
  // What `npm i core client-node` lays out without an override: undici 8 hoisted for client-node, 7 nested in core.
  const npmLayout = () =>
    project({
      'node_modules/@kubernetes/client-node': clientNode,
      'node_modules/undici': undici8,
      'node_modules/@multicluster-runtime/core': core,
      'node_modules/@multicluster-runtime/core/node_modules/undici': undici7,
    });

  it("finds client-node's undici 8, not core's undici 7, and on Node 20 says how to fix it", () => {
    const root = npmLayout();
    const problem = undiciNodeProblem(coreDist(root), '20.20.2');
    expect(problem).toBeInstanceOf(UndiciNeedsNewerNodeError);
    expect(problem).toMatchObject({ undiciVersion: '8.12.4', requiredNode: '>=22.19.0', nodeVersion: '20.20.2' });
    expect(problem?.undiciDir).toBe(join(root, 'node_modules/undici'));
    expect(problem?.message).toContain('"overrides": { "undici": "^7" }');
    expect(problem?.message).toContain('run Node 22.19.0 or newer');
    expect(problem?.message).toContain('this is Node 20.20.2');
  });

  it('is silent on a Node that undici supports', () => {
    const root = npmLayout();
    for (const node of ['22.19.0', '22.23.3', '24.21.0', '25.0.0']) expect(undiciNodeProblem(coreDist(root), node)).toBeUndefined();
    for (const node of ['22.18.9', '21.7.3', '20.19.0'])
      expect(undiciNodeProblem(coreDist(root), node)).toBeInstanceOf(UndiciNeedsNewerNodeError);
  });

  it('is silent when the override pinned undici 7 for everyone', () => {
    const root = project({
      'node_modules/@kubernetes/client-node': clientNode,
      'node_modules/undici': undici7,
      'node_modules/@multicluster-runtime/core': core,
    });
    expect(undiciNodeProblem(coreDist(root), '20.20.2')).toBeUndefined();
  });

  it("reads the undici nested in client-node's own folder before a hoisted one", () => {
    const root = project({
      'node_modules/@kubernetes/client-node': clientNode,
      'node_modules/@kubernetes/client-node/node_modules/undici': undici8,
      'node_modules/undici': undici7,
      'node_modules/@multicluster-runtime/core': core,
    });
    expect(undiciNodeProblem(coreDist(root), '20.20.2')?.undiciDir).toBe(
      join(root, 'node_modules/@kubernetes/client-node/node_modules/undici'),
    );
  });

  it("follows a symlinked client-node to its real folder, where its undici is (pnpm's layout)", () => {
    const root = project({
      'node_modules/.pnpm/client-node@2.0.1/node_modules/@kubernetes/client-node': clientNode,
      'node_modules/.pnpm/client-node@2.0.1/node_modules/undici': undici8,
      'node_modules/@multicluster-runtime/core': core,
      'node_modules/@multicluster-runtime/core/node_modules/undici': undici7,
    });
    mkdirSync(join(root, 'node_modules/@kubernetes'));
    symlinkSync(
      join(root, 'node_modules/.pnpm/client-node@2.0.1/node_modules/@kubernetes/client-node'),
      join(root, 'node_modules/@kubernetes/client-node'),
    );
    expect(undiciNodeProblem(coreDist(root), '20.20.2')?.undiciVersion).toBe('8.12.4');
  });

  it('leaves the import alone when there is nothing it knows better', () => {
    const noClientNode = project({ 'node_modules/undici': undici8, 'node_modules/@multicluster-runtime/core': core });
    expect(undiciNodeProblem(coreDist(noClientNode), '20.20.2')).toBeUndefined();
    const noUndiciDependency = project({
      'node_modules/@kubernetes/client-node': { ...clientNode, dependencies: {} },
      'node_modules/undici': undici8,
    });
    expect(undiciNodeProblem(noUndiciDependency, '20.20.2')).toBeUndefined();
    const otherRange = project({
      'node_modules/@kubernetes/client-node': clientNode,
      'node_modules/undici': { ...undici8, engines: { node: '^22.19.0 || >=24' } },
    });
    expect(undiciNodeProblem(otherRange, '20.20.2')).toBeUndefined();
  });
});

describe('the guard', () => {
  const coreDir = resolve(import.meta.dirname, '../..');

  it('is the first import of every entry point of core', () => {
    const manifest = JSON.parse(readFileSync(join(coreDir, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    const entries = Object.values(manifest.exports)
      .map((target) =>
        typeof target === 'object' && target ? (target as Record<string, string>)['@multicluster-runtime/source'] : undefined,
      )
      .filter((source): source is string => source !== undefined);
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      const file = join(coreDir, entry);
      // The first import or re-export statement (after comments), and the module it names.
      const first = /^(?:import|export)\b[^;]*?['"]([^'"]+)['"];?$/m.exec(readFileSync(file, 'utf8'));
      expect(first, `${entry} imports nothing`).not.toBeNull();
      expect(resolve(dirname(file), first![1]!).replace(/\.js$/, '.ts'), `${entry}'s first import`).toBe(
        join(import.meta.dirname, 'guard.ts'),
      );
    }
  });

  it('is declared a side effect, so bundlers keep it', () => {
    const manifest = JSON.parse(readFileSync(join(coreDir, 'package.json'), 'utf8')) as { sideEffects: unknown };
    expect(manifest.sideEffects).toEqual(['./dist/node-support/guard.js']);
  });
});
