/**
 * Each package is released on its own, for real. In a throwaway clone of the repository (release-clone.ts), the
 * packages as they are are published to a local Verdaccio (local-registry.ts) as their last release, and tagged as
 * such; then a docs commit to one provider and a fix plus a breaking feature to provider-kubeconfig are committed, and
 * `nx release --yes` runs with the repository's release config (independent, Conventional Commits, 0.x breaking =
 * minor), git commit and tag turned on in the clone only. Only provider-kubeconfig may get a new version, changelog,
 * tag and publish; every other package, provider-multi (whose tests use it) included, keeps its version, and the
 * lockfile keeps linking every package from the workspace. Last, an empty project installs core and the new
 * provider-kubeconfig from the registry, and the README shipped in it runs as its scenario says.
 * Nothing is published anywhere but 127.0.0.1: assertPublishesOnlyTo checks npm's effective settings first.
 * The clone is of HEAD (commit first when running this locally); dist/ comes from the workspace build.
 * Slow (a registry, publishes, installs through it): run by check.sh (step `release`), not by `npm test`.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { installConsumerProject } from '../consumer-project.js';
import { runExample, writeExample } from '../example-program.js';
import { ExampleFixtures } from '../scenarios/fixtures.js';
import { readmeScenarios } from '../scenarios/readme-scenarios.js';
import { playScenario } from '../scenarios/scenario.js';
import { buildIfStale, removeOrphanedOutput } from '../workspace-build.js';
import { readManifest, repoRoot, workspacePackages } from '../workspace.js';
import { LocalRegistry, assertPublishesOnlyTo } from './local-registry.js';
import { ReleaseClone } from './release-clone.js';

const exec = promisify(execFile);
const released = 'packages/provider-kubeconfig';
/** Pins the packages it scaffolds (its optional peers), so a release of one of them releases it too. */
const scaffolder = 'packages/create-controller';
const untouchedButDocumented = 'packages/provider-capi';
const packages = workspacePackages();
const published = packages.filter((p) => !p.manifest.private);

let registry: LocalRegistry | undefined;
let work: string;
let fx: ExampleFixtures | undefined;

beforeAll(async () => {
  const names = packages.map((p) => p.relDir.slice('packages/'.length));
  await buildIfStale(names);
  removeOrphanedOutput(names);
  work = mkdtempSync(join(tmpdir(), 'release-test-'));
  registry = await LocalRegistry.start();
});
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});
afterAll(async () => {
  await registry?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The version a breaking change releases: the next minor at 0.x (adjustSemverBumpsForZeroMajorVersion), else major. */
function afterBreakingChange(version: string): string {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major === 0 ? `0.${minor + 1}.0` : `${major + 1}.0.0`;
}

/** The version after a patch release. */
function afterPatch(version: string): string {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map(Number);
  return `${major}.${minor}.${patch + 1}`;
}

it('nx release versions, changelogs, tags and publishes only the package that changed (and the scaffolder that pins it), and it installs and runs from the registry', async () => {
  const reg = registry!;
  const tagsBefore = await repoTags();
  const clone = await ReleaseClone.create(repoRoot, join(work, 'clone'));
  const env = { ...reg.env(), NX_DAEMON: 'false', NX_NO_CLOUD: 'true', NX_TUI: 'false' };
  await assertPublishesOnlyTo(reg.url, clone.dir, env);

  // The registry before this release: every package as it is now, published once.
  const took: Record<string, number> = {};
  let t0 = Date.now();
  const lap = (phase: string) => {
    took[phase] = Math.round((Date.now() - t0) / 1000);
    t0 = Date.now();
  };
  const firstPublish = await clone.run('npx', ['nx', 'release', 'publish'], env);
  lap('first publish');
  // Every publish went to the local registry (the registry's contents below say which ones happened).
  expect(new Set(firstPublish.match(/Published to \S+/g))).toEqual(new Set([`Published to ${reg.url}`]));
  for (const p of published) {
    expect(await reg.versions(p.manifest.name)).toEqual({ versions: [p.manifest.version], latest: p.manifest.version });
  }

  // That publish was the last release: tags at HEAD. Then the commits of this release.
  await clone.releaseCommitsAndTags();
  await clone.tagCurrentVersions();
  const before = clone.manifests();
  const changelogsBefore = [...before.keys()].filter((dir) => existsSync(join(clone.dir, dir, 'CHANGELOG.md')));
  const nonce = `${Date.now().toString(36)}`;
  await clone.commitLine(
    `${untouchedButDocumented}/README.md`,
    `Release test note ${nonce}.`,
    'docs(provider-capi): a note for the release test',
  );
  await clone.commitLine(`${released}/README.md`, `Release test fix ${nonce}.`, 'fix(provider-kubeconfig): a fix for the release test');
  await clone.commitLine(
    `${released}/README.md`,
    `Release test feature ${nonce}.`,
    'feat(provider-kubeconfig)!: a breaking feature for the release test',
  );

  t0 = Date.now();
  const output = await clone.run('npx', ['nx', 'release', '--yes'], env);
  lap('nx release');

  // Versions: one package moved, by a minor (0.x breaking change); the scaffolder, which pins it, by a patch, now
  // pinning the new version; the others, provider-multi included, did not move.
  const after = clone.manifests();
  const oldVersion = before.get(released)!.version;
  const newVersion = afterBreakingChange(oldVersion);
  const scaffolderVersion = afterPatch(before.get(scaffolder)!.version);
  for (const [dir, manifest] of before) {
    const expected = dir === released ? newVersion : dir === scaffolder ? scaffolderVersion : manifest.version;
    expect(`${dir}@${after.get(dir)!.version}`).toBe(`${dir}@${expected}`);
  }
  expect(after.get(scaffolder)!.peerDependencies?.[before.get(released)!.name]).toBe(`^${newVersion}`);
  expect(output.match(/Published to \S+/g)).toEqual([`Published to ${reg.url}`, `Published to ${reg.url}`]);

  // Changelog: the new one only, with both commits and the breaking change called out.
  const changelog = readFileSync(join(clone.dir, released, 'CHANGELOG.md'), 'utf8');
  expect(changelog).toContain(`## ${newVersion}`);
  expect(changelog).toMatch(/Breaking Changes[\s\S]*a breaking feature for the release test/);
  expect(changelog).toContain('a fix for the release test');
  expect(changelog).not.toContain('a note for the release test');
  expect([...after.keys()].filter((dir) => existsSync(join(clone.dir, dir, 'CHANGELOG.md')))).toEqual(
    [...changelogsBefore, scaffolder, released].sort(),
  );
  expect(readFileSync(join(clone.dir, scaffolder, 'CHANGELOG.md'), 'utf8')).toContain(`## ${scaffolderVersion}`);

  // Git, in the clone only: one release commit with the manifests, the changelogs and the lockfile; a tag for each.
  expect(await clone.changedFiles()).toEqual(
    [
      'package-lock.json',
      `${scaffolder}/CHANGELOG.md`,
      `${scaffolder}/package.json`,
      `${released}/CHANGELOG.md`,
      `${released}/package.json`,
    ].sort(),
  );
  const name = before.get(released)!.name;
  const scaffolderName = before.get(scaffolder)!.name;
  expect((await clone.git('tag', '--points-at', 'HEAD')).trim().split('\n').sort()).toEqual(
    [`${name}@${newVersion}`, `${scaffolderName}@${scaffolderVersion}`].sort(),
  );
  expect(await repoTags()).toEqual(tagsBefore);
  // The lockfile still links every package from the workspace (a pin that stopped matching would fetch it instead).
  const lock = JSON.parse(readFileSync(join(clone.dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, { link?: boolean }> };
  const fetched = Object.entries(lock.packages).filter(
    ([path, entry]) => /node_modules\/@multicluster-runtime\//.test(path) && !entry.link,
  );
  expect(fetched.map(([path]) => path)).toEqual([]);

  // The registry now: the new version is latest; nothing else was published again.
  for (const p of published) {
    const versions =
      p.relDir === released
        ? [oldVersion, newVersion]
        : p.relDir === scaffolder
          ? [p.manifest.version, scaffolderVersion]
          : [p.manifest.version];
    expect(await reg.versions(p.manifest.name)).toEqual({ versions, latest: versions.at(-1) });
  }

  // A user's project installs core and the new provider from the registry; the README shipped in it runs.
  const core = readManifest(join(repoRoot, 'packages/core'));
  const consumer = join(work, 'consumer');
  await installConsumerProject(consumer, { [core.name]: `^${core.version}`, [name]: `^${newVersion}` }, { env: reg.env() });
  lap('install from the registry');
  const installed = join(consumer, 'node_modules', name);
  expect(readManifest(installed).version).toBe(newVersion);
  expect(readManifest(join(consumer, 'node_modules', core.name)).version).toBe(core.version);
  expect(readFileSync(join(installed, 'README.md'), 'utf8')).toContain(`Release test feature ${nonce}.`);

  const scenario = readmeScenarios.find((s) => s.readme === `${released}/README.md`)!;
  const program = writeExample(join(installed, 'README.md'), consumer, 'example');
  fx = new ExampleFixtures();
  const prepared = await scenario.prepare(fx);
  await playScenario(scenario.readme, prepared, () => runExample(program, prepared));
  lap('README example');
  console.log(
    `[release] ${Object.entries(took)
      .map(([phase, s]) => `${phase} ${s}s`)
      .join(', ')}`,
  );
}, 900_000);

/** The repository's own tags, which the release must not touch. */
async function repoTags(): Promise<string> {
  return (await exec('git', ['tag', '--list'], { cwd: repoRoot })).stdout;
}
