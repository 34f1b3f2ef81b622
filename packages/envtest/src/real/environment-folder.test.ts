import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEnvironmentFolder, sweepAbandonedFolders } from './environment-folder.js';

describe('environment folders', () => {
  let parent: string;
  beforeEach(async () => {
    parent = await mkdtemp(join(tmpdir(), 'mcr-folders-test-'));
  });
  afterEach(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  /** The pid of a process that has exited (and been reaped), so nothing owns it now. */
  function deadPid(): number {
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    return Number(child.stdout.toString());
  }

  it('records this process as the owner', async () => {
    const dir = await createEnvironmentFolder(parent);
    expect(await readFile(join(dir, 'owner.pid'), 'utf8')).toBe(String(process.pid));
  });

  it('sweeps folders whose owner is gone, and only those', async () => {
    const mine = await createEnvironmentFolder(parent);
    const abandoned = join(parent, 'mcr-envtest-abandoned');
    await mkdir(join(abandoned, 'etcd'), { recursive: true });
    await writeFile(join(abandoned, 'owner.pid'), String(deadPid()));
    const ownerless = join(parent, 'mcr-envtest-no-owner');
    await mkdir(ownerless);
    const foreign = join(parent, 'something-else');
    await mkdir(foreign);
    await writeFile(join(foreign, 'owner.pid'), String(deadPid()));

    expect(await sweepAbandonedFolders(parent)).toEqual([abandoned]);
    expect((await readdir(parent)).sort()).toEqual([mine.slice(parent.length + 1), 'mcr-envtest-no-owner', 'something-else'].sort());
  });

  it('does nothing for a missing parent folder', async () => {
    await expect(sweepAbandonedFolders(join(parent, 'missing'))).resolves.toEqual([]);
  });
});
