/** Which build output counts as stale or orphaned, on a fake repository in a temp folder (no build runs). */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeOrphanedOutput, stalePackages } from './workspace-build.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pack-build-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, mtimeSeconds = 1_000): void {
  const abs = join(root, path);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, '');
  utimesSync(abs, mtimeSeconds, mtimeSeconds);
}

describe('removeOrphanedOutput', () => {
  it('removes output and maps whose source is gone, in subfolders too, and keeps the rest', () => {
    for (const f of ['src/a.ts', 'src/sub/c.ts', 'package.json']) write(`packages/x/${f}`);
    const kept = ['dist/a.js', 'dist/a.js.map', 'dist/a.d.ts', 'dist/a.d.ts.map', 'dist/sub/c.js', 'dist/tsconfig.tsbuildinfo'];
    const orphans = ['dist/b.js', 'dist/b.d.ts.map', 'dist/sub/old.js', 'dist/sub/old.d.ts'];
    for (const f of [...kept, ...orphans]) write(`packages/x/${f}`);

    expect(removeOrphanedOutput(['x'], root)).toEqual(orphans.map((f) => `packages/x/${f}`).sort());
    const left = readdirSync(join(root, 'packages/x/dist'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name).slice(join(root, 'packages/x/').length));
    expect(left.sort()).toEqual([...kept].sort());
  });

  it('leaves a package without dist/ or src/ alone', () => {
    write('packages/y/dist/only.js');
    write('packages/z/src/only.ts');
    expect(removeOrphanedOutput(['y', 'z'], root)).toEqual([]);
  });
});

describe('stalePackages', () => {
  it('is every package never built or with a source or manifest newer than its build info', () => {
    for (const name of ['fresh', 'edited', 'never', 'manifest']) {
      write(`packages/${name}/src/index.ts`, 1_000);
      write(`packages/${name}/package.json`, 1_000);
      if (name !== 'never') write(`packages/${name}/dist/tsconfig.tsbuildinfo`, 2_000);
    }
    write('packages/edited/src/deep/new.ts', 3_000);
    write('packages/fresh/src/later.test.ts', 3_000); // tests are not built
    write('packages/manifest/package.json', 3_000);
    expect(stalePackages(['fresh', 'edited', 'never', 'manifest'], root)).toEqual(['edited', 'never', 'manifest']);
  });
});
