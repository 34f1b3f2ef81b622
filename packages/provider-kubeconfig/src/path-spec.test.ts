import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { pathSpec } from './path-spec.js';

const root = mkdtempSync(join(tmpdir(), 'mcr-paths-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

mkdirSync(join(root, 'dir', 'sub', 'deeper'), { recursive: true });
mkdirSync(join(root, 'dir', '.hidden'));
for (const f of [
  'dir/a.kubeconfig',
  'dir/b.yaml',
  'dir/.c.kubeconfig',
  'dir/sub/d.kubeconfig',
  'dir/sub/deeper/e.kubeconfig',
  'dir/.hidden/f.kubeconfig',
]) {
  writeFileSync(join(root, f), 'x');
}
symlinkSync('a.kubeconfig', join(root, 'dir', 'linked.kubeconfig'));
symlinkSync('sub', join(root, 'dir', 'linked-dir'));

test('a folder covers its non-hidden files, following symlinked files', async () => {
  const spec = await pathSpec(join(root, 'dir'));
  expect(spec).toMatchObject({ watchDir: join(root, 'dir'), depth: 0 });
  expect(await spec.list()).toEqual(['a.kubeconfig', 'b.yaml', 'linked.kubeconfig'].map((f) => join(root, 'dir', f)));
});

test('a file covers itself while it exists, and is watched through its folder', async () => {
  const spec = await pathSpec('b.yaml', join(root, 'dir'));
  expect(spec).toMatchObject({ watchDir: join(root, 'dir'), depth: 0 });
  expect(await spec.list()).toEqual([join(root, 'dir', 'b.yaml')]);
  expect(await (await pathSpec(join(root, 'dir', 'missing.yaml'))).list()).toEqual([]);
});

test('globs match within their depth, skip hidden entries and do not follow symlinked folders', async () => {
  const shallow = await pathSpec(join(root, 'dir', '*.kubeconfig'));
  expect(shallow).toMatchObject({ watchDir: join(root, 'dir'), depth: 0 });
  expect(await shallow.list()).toEqual([join(root, 'dir', 'a.kubeconfig'), join(root, 'dir', 'linked.kubeconfig')]);

  const deep = await pathSpec(join(root, 'dir', '**', '*.kubeconfig'));
  expect(deep.depth).toBeUndefined();
  expect(await deep.list()).toEqual([
    join(root, 'dir', 'a.kubeconfig'),
    join(root, 'dir', 'linked.kubeconfig'),
    join(root, 'dir', 'sub', 'd.kubeconfig'),
    join(root, 'dir', 'sub', 'deeper', 'e.kubeconfig'),
  ]);

  const oneDown = await pathSpec(join(root, 'dir', '*', '*.kubeconfig'));
  expect(oneDown.depth).toBe(1);
  expect(await oneDown.list()).toEqual([join(root, 'dir', 'sub', 'd.kubeconfig')]);
});

test('a leading ~/ is the home folder', async () => {
  const spec = await pathSpec('~/no-such-kubeconfig-here.yaml');
  expect(spec.watchDir).toBe(homedir());
});
