/**
 * `npm pack` of one package folder: the tarball and the exact list of files it holds, as npm reports them. Every
 * check reads this list rather than the folder, so a file left out by `files` counts as missing.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readManifest, type Manifest } from './workspace.js';

const run = promisify(execFile);

export interface PackedPackage {
  /** The folder that was packed. */
  dir: string;
  manifest: Manifest;
  /** Absolute path of the .tgz. */
  tarball: string;
  /** Paths inside the package (`dist/index.js`, `package.json`, …), sorted. */
  files: string[];
}

export class PackFailedError extends Error {
  override readonly name = 'PackFailedError';
  constructor(
    readonly dir: string,
    readonly stderr: string,
  ) {
    super(`npm pack failed in ${dir}: ${stderr.trim().split('\n').slice(-5).join(' | ')}`);
  }
}

interface NpmPackEntry {
  filename: string;
  files: { path: string }[];
}

/** Packs `dir` into `destination`. Lifecycle scripts are skipped: the build happens once, before packing. */
export async function packPackage(dir: string, destination: string, signal?: AbortSignal): Promise<PackedPackage> {
  let stdout: string;
  try {
    ({ stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', destination], {
      cwd: dir,
      signal,
      maxBuffer: 64 * 1024 * 1024,
    }));
  } catch (err) {
    throw new PackFailedError(dir, (err as { stderr?: string }).stderr ?? String(err));
  }
  const [entry] = JSON.parse(stdout) as NpmPackEntry[];
  if (!entry) throw new PackFailedError(dir, 'npm pack printed no package');
  return {
    dir,
    manifest: readManifest(dir),
    tarball: join(destination, entry.filename),
    files: entry.files.map((f) => f.path).sort(),
  };
}
