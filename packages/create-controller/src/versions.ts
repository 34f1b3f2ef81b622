/**
 * The versions a scaffolded project pins. The library's packages come from this package's own (optional)
 * peerDependencies: nx release rewrites those ranges whenever a package is released, so a scaffolder always pins the
 * packages released with it, and npm installs none of them when the scaffolder runs. The tools are the ones this
 * repository builds and tests with (a test keeps them in step).
 */
import { readFileSync } from 'node:fs';
import { VersionTableError } from './errors.js';

/** Exact versions of the library's packages and @kubernetes/client-node, keyed by package name. */
export type PinnedVersions = Readonly<Record<string, string>>;

/** Dev tools of a scaffolded project: TypeScript, vitest and Node's types (ranges, as npm writes them). */
export const toolVersions = {
  typescript: '^6.0.3',
  vitest: '^4.1.12',
} as const;

/** Node's types for the Node that runs the scaffolder (its major; 20 at least). */
export function nodeTypesRange(nodeVersion = process.versions.node): string {
  const major = Math.max(20, Number(nodeVersion.split('.')[0]));
  return `^${major}.0.0`;
}

/** Reads the pinned versions from a package.json's peerDependencies (default: this package's). */
export function pinnedVersions(manifestUrl: URL = new URL('../package.json', import.meta.url)): PinnedVersions {
  let peers: unknown;
  try {
    peers = (JSON.parse(readFileSync(manifestUrl, 'utf8')) as { peerDependencies?: unknown }).peerDependencies;
  } catch (err) {
    throw new VersionTableError(`cannot read ${manifestUrl.pathname}: ${(err as Error).message}`);
  }
  if (typeof peers !== 'object' || peers === null) throw new VersionTableError(`${manifestUrl.pathname} has no peerDependencies`);
  const pinned: Record<string, string> = {};
  for (const [name, range] of Object.entries(peers as Record<string, unknown>)) {
    const version = typeof range === 'string' ? /^[\^~]?(\d+\.\d+\.\d+(?:-[\w.]+)?)$/.exec(range)?.[1] : undefined;
    if (!version) throw new VersionTableError(`peerDependencies.${name} is ${JSON.stringify(range)}, not a version range such as ^1.2.3`);
    pinned[name] = version;
  }
  return pinned;
}

/** The exact version of `name`; throws when the table lacks it. */
export function versionOf(versions: PinnedVersions, name: string): string {
  const version = versions[name];
  if (!version) throw new VersionTableError(`no pinned version for ${name}`);
  return version;
}
