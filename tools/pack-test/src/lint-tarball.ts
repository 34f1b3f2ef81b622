/**
 * The community's checkers of a packed tarball, run as their CLIs on the .tgz the pack test made (so every tool sees
 * the same bytes): publint (package.json fields against the files; warnings count as errors) and arethetypeswrong
 * with the esm-only profile (types resolve for Node 16+ ESM and bundler consumers; CommonJS `require` is not
 * promised, the packages are ESM-only).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './workspace.js';

const run = promisify(execFile);

export interface LintResult {
  ok: boolean;
  /** The tool's report, for the failure message. */
  output: string;
}

async function lint(bin: string, args: string[], signal?: AbortSignal): Promise<LintResult> {
  try {
    const { stdout, stderr } = await run(join(repoRoot, 'node_modules/.bin', bin), args, {
      cwd: repoRoot,
      signal,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    return { ok: true, output: `${stdout}${stderr}` };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` || String(err) };
  }
}

export function publint(tarball: string, signal?: AbortSignal): Promise<LintResult> {
  return lint('publint', ['run', '--strict', tarball], signal);
}

export function arethetypeswrong(tarball: string, signal?: AbortSignal): Promise<LintResult> {
  return lint('attw', ['--profile', 'esm-only', '--no-color', '--no-emoji', '--format', 'ascii', tarball], signal);
}
