/**
 * What npm would publish works on its own. Every package is built, its orphaned build output removed (as a clean
 * build would), packed once with `npm pack`, and each tarball checked by our checker (exports, files, declared
 * dependencies, publish metadata), publint and arethetypeswrong. Then, for each published provider alone with core
 * and once for core + provider-multi + two providers, an empty project outside the repository installs the tarballs
 * only, imports every installed package (and every subpath of core) with plain node, type-checks consumer files and
 * the README examples against the packed declarations, and runs the examples against in-memory API servers exactly as
 * readme-examples.test.ts does against the workspace. A provider author's project runs core's acceptance suite from
 * the tarballs with its own vitest. Last, copies of a package with a broken `files` and a broken `exports` must fail
 * the same steps, so a passing run means something. The projects carry the README's undici override only on a Node
 * that needs it (20); on Node 22.19+ and 24 they install with none, as users do (.ci/run runs this on Node 20 and 24).
 * Slow (installs): run by check.sh through vitest.pack.config.ts, not by `npm test`.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkPackedPackage } from './check-package.js';
import {
  createConsumerProject,
  importInProject,
  nodeNeedsUndiciOverride,
  npmEnv,
  typecheckProject,
  undiciVersionOfClientNode,
} from './consumer-project.js';
import { consumerFiles } from './consumer-types.js';
import { arethetypeswrong, publint } from './lint-tarball.js';
import { runExample, writeExample } from './example-program.js';
import { packPackage, type PackedPackage } from './packed-package.js';
import { ExampleFixtures } from './scenarios/fixtures.js';
import { readmeScenarios } from './scenarios/readme-scenarios.js';
import { ExampleFailedError, playScenario, type ExampleScenario } from './scenarios/scenario.js';
import { acceptanceTestFile, runVitestInProject } from './testing-kit.js';
import { buildIfStale, removeOrphanedOutput } from './workspace-build.js';
import { repoRoot, workspacePackages, type Manifest } from './workspace.js';

const scenario = (readme: string): ExampleScenario => {
  const found = readmeScenarios.find((s) => s.readme === readme);
  if (!found) throw new Error(`no scenario for ${readme}`);
  return found;
};

interface ConsumerSpec {
  name: string;
  packages: string[];
  examples: ExampleScenario[];
}

/** Each consumer project: what it installs from tarballs, and the README examples it type-checks and runs. */
const projects: ConsumerSpec[] = [
  { name: 'core', packages: ['core'], examples: [scenario('packages/core/README.md')] },
  { name: 'apimachinery', packages: ['apimachinery'], examples: [scenario('packages/apimachinery/README.md')] },
  { name: 'envtest', packages: ['envtest'], examples: [scenario('packages/envtest/README.md')] },
  {
    name: 'core + provider-kubeconfig',
    packages: ['core', 'provider-kubeconfig'],
    examples: [scenario('packages/provider-kubeconfig/README.md'), scenario('README.md')],
  },
  { name: 'core + provider-kind', packages: ['core', 'provider-kind'], examples: [scenario('packages/provider-kind/README.md')] },
  { name: 'core + provider-capi', packages: ['core', 'provider-capi'], examples: [scenario('packages/provider-capi/README.md')] },
  {
    name: 'core + provider-cluster-inventory-api',
    packages: ['core', 'provider-cluster-inventory-api'],
    examples: [scenario('packages/provider-cluster-inventory-api/README.md')],
  },
  {
    name: 'core + provider-kcp-apiexport',
    packages: ['core', 'provider-kcp-apiexport'],
    examples: [scenario('packages/provider-kcp-apiexport/README.md')],
  },
  { name: 'core + provider-milo', packages: ['core', 'provider-milo'], examples: [scenario('packages/provider-milo/README.md')] },
  {
    name: 'core + provider-namespace',
    packages: ['core', 'provider-namespace'],
    examples: [scenario('packages/provider-namespace/README.md')],
  },
  {
    name: 'core + provider-gardener',
    packages: ['core', 'provider-gardener'],
    examples: [scenario('packages/provider-gardener/README.md')],
  },
  { name: 'create-controller', packages: ['create-controller'], examples: [scenario('packages/create-controller/README.md')] },
  // Installed alone (with core) it is imported and type-checked; its README example also needs provider-kubeconfig.
  { name: 'core + webhook', packages: ['core', 'webhook'], examples: [] },
  {
    name: 'core + provider-kubeconfig + webhook',
    packages: ['core', 'provider-kubeconfig', 'webhook'],
    examples: [scenario('packages/webhook/README.md')],
  },
  // Its README composes provider-kubeconfig; alone it is imported and type-checked (consumer-provider-multi.ts).
  { name: 'core + provider-multi', packages: ['core', 'provider-multi'], examples: [] },
  {
    name: 'core + provider-multi + provider-kubeconfig + provider-kind',
    packages: ['core', 'provider-multi', 'provider-kubeconfig', 'provider-kind'],
    examples: [scenario('packages/provider-multi/README.md'), scenario('packages/provider-kind/README.md')],
  },
];

const packages = workspacePackages();
const folder = (relDir: string) => relDir.slice('packages/'.length);
const tarballs = new Map<string, PackedPackage>();
let work: string;
let fx: ExampleFixtures | undefined;

beforeAll(async () => {
  const names = packages.map((p) => folder(p.relDir));
  await buildIfStale(names);
  const removed = removeOrphanedOutput(names);
  if (removed.length > 0) console.log(`removed build output whose source is gone:\n  ${removed.join('\n  ')}`);
  work = mkdtempSync(join(tmpdir(), 'pack-test-'));
  const out = join(work, 'tarballs');
  mkdirSync(out);
  for (const p of packages) tarballs.set(folder(p.relDir), await packPackage(p.dir, out));
});
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('every tarball is publishable', () => {
  for (const p of packages) {
    it(`${p.manifest.name}: contents, exports and dependencies; publint; arethetypeswrong`, async () => {
      const packed = tarballs.get(folder(p.relDir));
      expect(packed).toBeDefined();
      expect(checkPackedPackage(packed!, { relDir: p.relDir })).toEqual([]);
      const [lint, types] = await Promise.all([publint(packed!.tarball), arethetypeswrong(packed!.tarball)]);
      expect(lint.ok, lint.output).toBe(true);
      expect(types.ok, types.output).toBe(true);
    });
  }

  it('every published provider is installed alone with core by one of the projects', () => {
    const published = packages.filter((p) => !p.manifest.private && folder(p.relDir).startsWith('provider-'));
    expect(published.length).toBeGreaterThan(0);
    for (const p of published) {
      expect(projects.map((c) => c.packages.join(' '))).toContain(`core ${folder(p.relDir)}`);
    }
  });
});

/** Installs `spec` from `from` in a fresh folder; returns the folder and the programs written for its examples. */
async function installProject(spec: ConsumerSpec, from: ReadonlyMap<string, PackedPackage>): Promise<{ dir: string; programs: string[] }> {
  const dir = join(work, spec.name.replace(/\W+/g, '-'));
  await createConsumerProject(dir, spec.packages, from);
  for (const [file, source] of Object.entries(consumerFiles(spec.packages))) writeFileSync(join(dir, file), source);
  const programs = spec.examples.map((s) => writeExample(join(repoRoot, s.readme), dir, s.readme.replace(/\W+/g, '-')));
  return { dir, programs };
}

/** Runs each example of `spec` through its scenario against fresh in-memory servers. */
async function runExamples(spec: ConsumerSpec, programs: string[]): Promise<void> {
  for (const [i, s] of spec.examples.entries()) {
    fx = new ExampleFixtures();
    const prepared = await s.prepare(fx);
    await playScenario(s.readme, prepared, () => runExample(programs[i]!, prepared));
    await fx.close();
    fx = undefined;
  }
}

describe('installed from tarballs alone, each package imports, type-checks and runs its README example', () => {
  for (const project of projects) {
    it(project.name, async () => {
      const { dir, programs } = await installProject(project, tarballs);
      // As a user's: on Node 22.19+ no override, so client-node gets its undici 8; on Node 20 the README's override.
      const undiciMajor = Number(undiciVersionOfClientNode(dir).split('.')[0]);
      if (nodeNeedsUndiciOverride()) expect(undiciMajor).toBe(7);
      else expect(undiciMajor).toBeGreaterThanOrEqual(8);
      for (const p of project.packages) {
        const name = tarballs.get(p)!.manifest.name;
        // A real copy inside the project, not a link back into the repository; providers share the one core.
        const installed = realpathSync(join(dir, 'node_modules', name));
        expect(installed.startsWith(realpathSync(dir))).toBe(true);
        expect(existsSync(join(installed, 'node_modules/@multicluster-runtime/core'))).toBe(false);
        expect(await importInProject(dir, name)).toBe('');
      }
      if (project.name === 'core') {
        // Every subpath of core (./testing needs vitest: the provider author's project below imports it).
        const core = tarballs.get('core')!.manifest;
        const subpaths = Object.keys(core.exports as Record<string, unknown>)
          .filter((k) => k !== '.' && k !== './package.json' && k !== './testing')
          .map((k) => `${core.name}${k.slice(1)}`);
        expect(subpaths.length).toBeGreaterThan(10);
        expect(await importInProject(dir, subpaths)).toBe('');
      }
      expect(await typecheckProject(dir)).toBe('');
      await runExamples(project, programs);
    });
  }
});

describe("core's test kit, installed from tarballs with vitest, runs a provider author's acceptance suite", () => {
  it('@multicluster-runtime/core/testing type-checks and its suite passes', async () => {
    const dir = join(work, 'provider-author');
    await createConsumerProject(dir, ['core', 'envtest'], tarballs, { devDependencies: ['vitest'] });
    writeFileSync(join(dir, 'provider.acceptance.test.ts'), acceptanceTestFile);
    expect(await typecheckProject(dir)).toBe('');
    const output = await runVitestInProject(dir);
    // A fixed fleet of one: four cases run, the four needing a dynamic fleet are skipped.
    expect(output).toMatch(/Tests\s+4 passed \| 4 skipped \(8\)/);
  });
});

describe('npm init @multicluster-runtime/controller, from the tarballs', () => {
  it('the scaffolder runs through npm exec, and its project installs, passes its own npm test and builds', async () => {
    const scaffolder = tarballs.get('create-controller')!;
    const dir = join(work, 'scaffolded', 'fleet-ctl');
    mkdirSync(join(work, 'scaffolded'));
    // What `npm init @multicluster-runtime/controller fleet-ctl -- --yes` runs: the package's bin through npm exec. Its
    // optional peers (the packages it pins) are not installed: the scaffolder has no dependencies.
    await npm(
      ['exec', '--yes', `--package=${scaffolder.tarball}`, '--', 'create-controller', 'fleet-ctl', '--yes'],
      join(work, 'scaffolded'),
    );
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
    expect(manifest.name).toBe('fleet-ctl');
    expect(manifest.overrides !== undefined).toBe(nodeNeedsUndiciOverride());
    // Pinned to the versions packed here; those are not on a registry yet, so the project gets the tarballs instead.
    const byName = new Map([...tarballs.values()].map((t) => [t.manifest.name, t]));
    for (const field of ['dependencies', 'devDependencies'] as const) {
      const deps = manifest[field] ?? {};
      for (const [name, version] of Object.entries(deps).filter(([n]) => n.startsWith('@multicluster-runtime/'))) {
        expect(version, name).toBe(byName.get(name)!.manifest.version);
        deps[name] = `file:${byName.get(name)!.tarball}`;
      }
    }
    // What they depend on in turn (apimachinery, through core and envtest) is not on a registry either.
    manifest.dependencies!['@multicluster-runtime/apimachinery'] = `file:${tarballs.get('apimachinery')!.tarball}`;
    writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));

    await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], dir);
    expect(await npm(['test'], dir)).toMatch(/Tests\s+2 passed \(2\)/);
    await npm(['run', 'build'], dir);
    expect(existsSync(join(dir, 'dist/main.js'))).toBe(true);
    expect(existsSync(join(dir, 'dist/controller.test.js'))).toBe(false);
  });
});

/** Runs npm in `cwd` as a user would (no repository settings in the environment); resolves with its output. */
async function npm(args: string[], cwd: string): Promise<string> {
  try {
    const { stdout, stderr } = await promisify(execFile)('npm', args, {
      cwd,
      env: { ...npmEnv(), CI: '1', NO_COLOR: '1' },
      maxBuffer: 16 << 20,
    });
    return `${stdout}${stderr}`;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(' ')} failed in ${cwd}:\n${e.stdout ?? ''}${e.stderr ?? String(err)}`, { cause: err });
  }
}

// Node 20 without the README's override (issue 23): client-node's undici 8 cannot run there. Core's guard, evaluated
// before anything loads client-node, must stop the import with the fix: for core and each provider imported alone,
// and for a README example as users copy it.
describe.runIf(nodeNeedsUndiciOverride())('on Node 20 without the undici override', () => {
  const expectGuard = (output: string) => {
    expect(output).toContain('UndiciNeedsNewerNodeError');
    expect(output).toContain('"overrides": { "undici": "^7" }');
    expect(output).not.toContain('TypeError');
  };

  it("importing core, any provider or a README example fails with the fix, not undici's TypeError", async () => {
    // envtest, apimachinery and the scaffolder load no client-node; every other published package does, through core.
    const clientNodeFree = new Set(['packages/envtest', 'packages/apimachinery', 'packages/create-controller']);
    const published = packages.filter((p) => !p.manifest.private && !clientNodeFree.has(p.relDir)).map((p) => folder(p.relDir));
    const readme = 'packages/provider-kubeconfig/README.md';
    const dir = join(work, 'node20-no-override');
    await createConsumerProject(dir, published, tarballs, { undiciOverride: false });
    expect(Number(undiciVersionOfClientNode(dir).split('.')[0])).toBeGreaterThanOrEqual(8);
    // What users would see without the guard: client-node alone fails inside undici.
    expect(await importInProject(dir, '@kubernetes/client-node')).toMatch(/TypeError[\s\S]*node_modules\/undici\//);

    for (const p of published) expectGuard(await importInProject(dir, tarballs.get(p)!.manifest.name));
    const example = runExample(writeExample(join(repoRoot, readme), dir, 'example'), { cwd: dir, env: {} });
    expect((await example.exited).code).toBe(1);
    expectGuard(example.output());
  });
});

describe('a package with a broken manifest fails the same steps', () => {
  const victim = 'provider-kubeconfig';
  const breakages: { name: string; rule: string; edit(m: Manifest): void }[] = [
    {
      name: '"files" leaves out dist/',
      rule: 'missing-target',
      edit: (m) => {
        m.files = ['src', '!src/**/*.test.ts'];
      },
    },
    {
      name: '"exports" points at files that do not exist',
      rule: 'missing-target',
      edit: (m) => {
        m.exports = { '.': { types: './dist/main.d.ts', default: './dist/main.js' }, './package.json': './package.json' };
      },
    },
  ];

  for (const [i, breakage] of breakages.entries()) {
    it(breakage.name, async () => {
      const spec: ConsumerSpec = {
        name: `broken ${i} ${victim}`,
        packages: ['core', victim],
        examples: [scenario(`packages/${victim}/README.md`)],
      };
      const original = packages.find((p) => p.relDir === `packages/${victim}`)!;
      const copy = mkdtempSync(join(work, 'broken-'));
      cpSync(original.dir, copy, { recursive: true, filter: (src) => !src.includes('node_modules') });
      const manifest = JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8')) as Manifest;
      breakage.edit(manifest);
      writeFileSync(join(copy, 'package.json'), JSON.stringify(manifest, null, 2));
      const out = join(copy, '.out');
      mkdirSync(out);
      const broken = await packPackage(copy, out);

      expect(checkPackedPackage(broken, { relDir: original.relDir }).map((p) => p.rule)).toContain(breakage.rule);
      expect((await publint(broken.tarball)).ok).toBe(false);
      expect((await arethetypeswrong(broken.tarball)).ok).toBe(false);
      const { dir, programs } = await installProject(spec, new Map([...tarballs, [victim, broken]]));
      expect(await importInProject(dir, manifest.name)).toMatch(/ERR_MODULE_NOT_FOUND|ERR_PACKAGE_PATH_NOT_EXPORTED/);
      expect(await typecheckProject(dir)).toMatch(/TS2307|TS7016|TS2305/); // cannot find module / its declarations
      const ran = runExamples(spec, programs);
      await expect(ran).rejects.toThrow(ExampleFailedError);
      await expect(ran).rejects.toThrow(/ERR_MODULE_NOT_FOUND|ERR_PACKAGE_PATH_NOT_EXPORTED/);
      rmSync(dir, { recursive: true, force: true });
    });
  }
});
