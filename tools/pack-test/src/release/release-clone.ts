/**
 * A throwaway clone of this repository to release from: its own tags and commits, no remote (nothing can be pushed
 * back), the repository's node_modules linked in (nx and its plugins; no second install) and the packages' built
 * dist/ copied in (what `npm publish` packs). Everything nx release does in it stays in it.
 */
import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readManifest, workspacePackages, type Manifest } from '../workspace.js';

const exec = promisify(execFile);

export class ReleaseCloneError extends Error {
  override readonly name = 'ReleaseCloneError';
  constructor(command: string, output: string) {
    super(`${command} failed:\n${output.trim().split('\n').slice(-40).join('\n')}`);
  }
}

export class ReleaseClone {
  private constructor(readonly dir: string) {}

  /** Clones `from`'s HEAD into `dir` (which must not exist), links node_modules and copies each package's dist/. */
  static async create(from: string, dir: string): Promise<ReleaseClone> {
    await run('git', ['clone', '--quiet', from, dir], from);
    const clone = new ReleaseClone(dir);
    await clone.git('remote', 'remove', 'origin');
    for (const [key, value] of [
      ['user.name', 'release test'],
      ['user.email', 'release-test@example.invalid'],
      ['commit.gpgsign', 'false'],
      ['tag.gpgsign', 'false'],
    ] as const) {
      await clone.git('config', key, value);
    }
    symlinkSync(join(from, 'node_modules'), join(dir, 'node_modules'), 'dir');
    for (const p of workspacePackages(from)) {
      if (existsSync(join(p.dir, 'dist'))) cpSync(join(p.dir, 'dist'), join(dir, p.relDir, 'dist'), { recursive: true });
    }
    return clone;
  }

  /** git in the clone; its stdout. */
  async git(...args: string[]): Promise<string> {
    return (await run('git', args, this.dir)).stdout;
  }

  /** Runs `command` in the clone with exactly `env`; its stdout and stderr. */
  async run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
    const { stdout, stderr } = await run(command, args, this.dir, env);
    return `${stdout}${stderr}`;
  }

  /** The clone's packages (folder → manifest), as they are now on disk. */
  manifests(): Map<string, Manifest> {
    return new Map(workspacePackages(this.dir).map((p) => [p.relDir, readManifest(p.dir)]));
  }

  /** Tags every published package at HEAD with its current version, as its last release would have. */
  async tagCurrentVersions(): Promise<string[]> {
    const tags = workspacePackages(this.dir)
      .filter((p) => !p.manifest.private)
      .map((p) => `${p.manifest.name}@${p.manifest.version}`);
    for (const tag of tags) await this.git('tag', '--force', tag);
    return tags;
  }

  /** Appends `line` to `file` (relative to the clone) and commits it alone with `message`. */
  async commitLine(file: string, line: string, message: string): Promise<void> {
    appendFileSync(join(this.dir, file), `\n${line}\n`);
    await this.git('add', file);
    await this.git('commit', '--quiet', '--message', message);
  }

  /** Sets `release.git` in the clone's nx.json (the repository's says no commit, no tag) and commits it. */
  async releaseCommitsAndTags(): Promise<void> {
    const nxJson = JSON.parse(readFileSync(join(this.dir, 'nx.json'), 'utf8')) as { release: { git?: object } };
    nxJson.release.git = { commit: true, tag: true };
    writeFileSync(join(this.dir, 'nx.json'), `${JSON.stringify(nxJson, null, 2)}\n`);
    await this.git('add', 'nx.json');
    await this.git('commit', '--quiet', '--message', 'chore: releases from this clone commit and tag');
  }

  /** The files a commit changed. */
  async changedFiles(commit = 'HEAD'): Promise<string[]> {
    return (await this.git('show', '--name-only', '--format=', commit)).split('\n').filter(Boolean).sort();
  }
}

async function run(command: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> {
  try {
    return await exec(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new ReleaseCloneError(`${command} ${args.join(' ')} (in ${cwd})`, `${e.stdout ?? ''}${e.stderr ?? ''}` || String(err));
  }
}
