/**
 * How the repository's own manifests refer to its packages, so each package can be released on its own (nx release,
 * tools/release/version-actions.cjs): a package's `dependencies`/`peerDependencies` on a sibling are `^<its
 * version>` (what nx release writes when the sibling is released), and every other reference (devDependencies, the
 * tools and examples, which are never published) is `"*"`. A pinned `"0.1.0"` there would stop matching the
 * workspace copy after a release, and npm would quietly install the published one instead. A sibling a package needs
 * only for its tests is also removed from nx's project graph (`"nx": { "implicitDependencies": ["!<name>"] }`):
 * otherwise nx release counts a change to it (envtest, say) as a change to every package whose tests use it and
 * patch-releases them all, though nothing their users install changed.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readManifest, repoRoot, type Manifest } from './workspace.js';

export interface RangeProblem {
  /** The manifest, relative to the root, e.g. `tools/demo/package.json`. */
  manifest: string;
  message: string;
}

const scope = '@multicluster-runtime/';

function manifestsUnder(root: string, folder: string): { rel: string; manifest: Manifest }[] {
  const dir = join(root, folder);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'package.json')))
    .map((e) => ({ rel: `${folder}/${e.name}/package.json`, manifest: readManifest(join(dir, e.name)) }))
    .sort((a, b) => a.rel.localeCompare(b.rel));
}

export function internalRangeProblems(root = repoRoot): RangeProblem[] {
  const packages = manifestsUnder(root, 'packages');
  const versions = new Map(packages.map((p) => [p.manifest.name, p.manifest.version]));
  const problems: RangeProblem[] = [];
  const check = (rel: string, field: string, deps: Record<string, string> | undefined, want: (name: string) => string) => {
    for (const [name, range] of Object.entries(deps ?? {})) {
      if (!name.startsWith(scope) || !versions.has(name)) continue;
      const expected = want(name);
      if (range !== expected)
        problems.push({ manifest: rel, message: `${field}.${name} is ${JSON.stringify(range)}, expected ${JSON.stringify(expected)}` });
    }
  };
  for (const { rel, manifest } of packages) {
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
      check(rel, field, manifest[field], (name) => `^${versions.get(name)}`);
    }
    check(rel, 'devDependencies', manifest.devDependencies, () => '*');
    const runtime = new Set(
      (['dependencies', 'peerDependencies', 'optionalDependencies'] as const).flatMap((f) => Object.keys(manifest[f] ?? {})),
    );
    const devOnly = Object.keys(manifest.devDependencies ?? {}).filter((n) => versions.has(n) && !runtime.has(n));
    const removed = (manifest.nx?.implicitDependencies ?? []).filter((d) => d.startsWith('!')).map((d) => d.slice(1));
    for (const name of devOnly.filter((n) => !removed.includes(n))) {
      problems.push({ manifest: rel, message: `nx.implicitDependencies lacks "!${name}" (${name} is only a devDependency)` });
    }
    for (const name of removed.filter((n) => runtime.has(n))) {
      problems.push({ manifest: rel, message: `nx.implicitDependencies removes "${name}", which the package needs at run time` });
    }
  }
  for (const { rel, manifest } of [...manifestsUnder(root, 'tools'), ...manifestsUnder(root, 'examples')]) {
    for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'] as const) {
      check(rel, field, manifest[field], () => '*');
    }
  }
  return problems;
}
