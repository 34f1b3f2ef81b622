/**
 * The private temp folder of one environment, and the sweep of folders whose test process died without cleaning
 * up (SIGKILLed runners). Each folder records its owner's pid; a later start removes folders of owners that are
 * gone, so a crashed run costs disk space only until the next one.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const prefix = 'mcr-envtest-';
const ownerFile = 'owner.pid';

/** Creates a fresh environment folder under `parent`, owned by this process. */
export async function createEnvironmentFolder(parent: string): Promise<string> {
  const dir = await mkdtemp(join(parent, prefix));
  await writeFile(join(dir, ownerFile), String(process.pid));
  return dir;
}

/** Removes environment folders under `parent` whose owning process no longer exists; never throws. */
export async function sweepAbandonedFolders(parent: string): Promise<string[]> {
  const removed: string[] = [];
  const entries = await readdir(parent).catch(() => [] as string[]);
  for (const entry of entries) {
    if (!entry.startsWith(prefix)) continue;
    const dir = join(parent, entry);
    const owner = Number((await readFile(join(dir, ownerFile), 'utf8').catch(() => '')).trim());
    // No owner file: a folder still being created, or not ours; leave it.
    if (!Number.isInteger(owner) || owner <= 0 || isAlive(owner)) continue;
    await rm(dir, { recursive: true, force: true }).then(
      () => removed.push(dir),
      () => undefined,
    );
  }
  return removed;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
