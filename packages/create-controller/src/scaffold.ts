/**
 * Writes a new controller project into a folder: checks everything first (name, provider, versions, an empty or
 * missing folder), renders every file in memory, then writes them, so a refused scaffold leaves nothing behind.
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { TargetNotEmptyError, UsageError } from './errors.js';
import { providerChoice, providerIds, type ProviderId } from './providers.js';
import { deployManifests } from './templates/deploy.js';
import {
  dockerfile,
  dockerignore,
  gitignore,
  packageJson,
  prettierrc,
  readme,
  tsconfigBuildJson,
  tsconfigJson,
  vitestConfigTs,
  type ProjectSettings,
} from './templates/project.js';
import { controllerTestTs, controllerTs, mainTs } from './templates/source.js';
import { pinnedVersions, type PinnedVersions } from './versions.js';

export interface ScaffoldOptions {
  /** The folder to create (or an empty one to fill). */
  dir: string;
  /** The project's name: a DNS label (it names the package, the Deployment, its ServiceAccount and RBAC). */
  name: string;
  provider: ProviderId;
  /** Default: the versions released with this scaffolder. */
  versions?: PinnedVersions;
  /** Default: only when the Node running the scaffolder needs it (older than 22.19). */
  undiciOverride?: boolean;
}

/** What was written: the folder and its files (relative paths, sorted). */
export interface ScaffoldResult {
  dir: string;
  files: string[];
}

/**
 * Throws UsageError for a name that cannot name a package and Kubernetes objects: a DNS label (RFC 1123) short enough
 * that the names built from it (`<name>-leader-election`, `<name>-system`) fit in 63 characters. Checked here rather
 * than with @multicluster-runtime/apimachinery so the scaffolder has no dependencies: `npm init` installs nothing.
 */
export function checkProjectName(name: string): void {
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name)) {
    throw new UsageError(
      `invalid name ${JSON.stringify(name)}: use lower case letters, digits and '-', starting and ending with a letter or digit (e.g. my-controller)`,
    );
  }
  if (name.length > 40)
    throw new UsageError(`invalid name ${JSON.stringify(name)}: at most 40 characters (<name>-leader-election must fit in 63)`);
}

export function checkProviderId(id: string): asserts id is ProviderId {
  if (!(providerIds as readonly string[]).includes(id)) {
    throw new UsageError(`unknown provider ${JSON.stringify(id)}: choose one of ${providerIds.join(', ')}`);
  }
}

/** Node older than 22.19 needs the undici override for @kubernetes/client-node 2.x. */
export function nodeNeedsUndiciOverride(version = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major < 22 || (major === 22 && minor < 19);
}

/** Every file of a project, by relative path. */
export function renderProject(settings: ProjectSettings): Record<string, string> {
  const { name, provider } = settings;
  const files: Record<string, string> = {
    'package.json': packageJson(settings),
    'tsconfig.json': tsconfigJson(),
    'tsconfig.build.json': tsconfigBuildJson(),
    'vitest.config.ts': vitestConfigTs(),
    '.gitignore': gitignore,
    '.prettierrc.json': prettierrc,
    '.dockerignore': dockerignore,
    Dockerfile: dockerfile(),
    'README.md': readme(settings),
    'src/main.ts': mainTs(name, provider),
    'src/controller.ts': controllerTs(name),
    'src/controller.test.ts': controllerTestTs(),
  };
  for (const [file, text] of Object.entries(deployManifests(name, provider))) files[`deploy/${file}`] = text;
  return files;
}

/** Writes the project; throws UsageError or TargetNotEmptyError (and writes nothing) for what it refuses. */
export function scaffold(options: ScaffoldOptions): ScaffoldResult {
  checkProjectName(options.name);
  checkProviderId(options.provider);
  const dir = resolve(options.dir);
  if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0)) throw new TargetNotEmptyError(dir);
  const files = renderProject({
    name: options.name,
    provider: providerChoice(options.provider, options.name),
    versions: options.versions ?? pinnedVersions(),
    undiciOverride: options.undiciOverride ?? nodeNeedsUndiciOverride(),
  });
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return { dir, files: Object.keys(files).sort() };
}
