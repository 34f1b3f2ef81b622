/**
 * The packages this repository publishes: every folder under packages/, with its manifest. Private ones are packed
 * and installed too (so they stay packable) but are not required to be publish-ready.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../../..');

/** The subset of package.json this tool reads. */
export interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  description?: string;
  license?: string;
  repository?: { type?: string; url?: string; directory?: string } | string;
  type?: string;
  sideEffects?: boolean | string[];
  engines?: Record<string, string>;
  exports?: unknown;
  main?: string;
  types?: string;
  bin?: string | Record<string, string>;
  files?: string[];
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  publishConfig?: { access?: string; registry?: string; [key: string]: string | undefined };
  overrides?: Record<string, string>;
  nx?: { implicitDependencies?: string[] };
}

export interface WorkspacePackage {
  /** Absolute path of the package folder. */
  dir: string;
  /** Path relative to the repository root, e.g. `packages/core`. */
  relDir: string;
  manifest: Manifest;
}

export function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
}

export function workspacePackages(root = repoRoot): WorkspacePackage[] {
  return readdirSync(join(root, 'packages'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const dir = join(root, 'packages', name);
      return { dir, relDir: `packages/${name}`, manifest: readManifest(dir) };
    });
}
