import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { parseCommandLine, resolveOptions, type Asker } from './cli.js';
import { TargetNotEmptyError, UsageError, VersionTableError } from './errors.js';
import { providerIds } from './providers.js';
import { renderProject, scaffold } from './scaffold.js';
import { providerChoice } from './providers.js';
import { pinnedVersions, toolVersions } from './versions.js';

const repoRoot = resolve(import.meta.dirname, '../../..');
interface Manifest {
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  overrides?: unknown;
}
const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
const temps: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'create-controller-'));
  temps.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('versions', () => {
  test('a scaffold pins the versions of the workspace packages it depends on, and the client-node core needs', () => {
    const versions = pinnedVersions();
    for (const name of Object.keys(versions).filter((n) => n.startsWith('@multicluster-runtime/'))) {
      const folder = name.slice('@multicluster-runtime/'.length);
      expect(versions[name], name).toBe(manifest(join(repoRoot, 'packages', folder)).version);
    }
    const core = manifest(join(repoRoot, 'packages/core'));
    expect(`^${versions['@kubernetes/client-node']}`).toBe(core.peerDependencies?.['@kubernetes/client-node']);
    // Every provider a scaffold can choose is pinned.
    for (const id of providerIds) expect(versions[providerChoice(id, 'x').package], id).toBeDefined();
  });

  test('the tool ranges take the versions this repository builds and tests with', () => {
    for (const [tool, range] of Object.entries(toolVersions)) {
      expect(range, tool).toBe(`^${manifest(join(repoRoot, 'node_modules', tool)).version}`);
    }
  });

  test('a peer range that is not a version is refused with the field named', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ peerDependencies: { a: '^1.2.3', b: '>=2 <3' } }));
    expect(() => pinnedVersions(new URL(`file://${dir}/package.json`))).toThrow(VersionTableError);
    expect(() => pinnedVersions(new URL(`file://${dir}/package.json`))).toThrow(/peerDependencies\.b/);
  });
});

describe('scaffold', () => {
  test('writes every file of the project; package.json depends on core, the provider and client-node only', () => {
    const dir = join(tempDir(), 'fleet-ctl');
    const { files } = scaffold({ dir, name: 'fleet-ctl', provider: 'capi', undiciOverride: false });
    expect(files).toEqual(
      [
        '.dockerignore',
        '.gitignore',
        '.prettierrc.json',
        'Dockerfile',
        'README.md',
        'deploy/20-deployment.yaml',
        'deploy/member/rbac.yaml',
        'deploy/00-namespace.yaml',
        'deploy/10-rbac.yaml',
        'package.json',
        'src/controller.test.ts',
        'src/controller.ts',
        'src/main.ts',
        'tsconfig.build.json',
        'tsconfig.json',
        'vitest.config.ts',
      ].sort(),
    );
    const pkg = manifest(dir);
    expect(Object.keys(pkg.dependencies ?? {})).toEqual([
      '@kubernetes/client-node',
      '@multicluster-runtime/core',
      '@multicluster-runtime/provider-capi',
    ]);
    expect(pkg.overrides).toBeUndefined();
    expect(readFileSync(join(dir, 'src/main.ts'), 'utf8')).toContain("new CapiProvider({ namespace: env('FLEET_NAMESPACE', namespace) })");
    expect(readFileSync(join(dir, 'deploy/10-rbac.yaml'), 'utf8')).toMatch(/- cluster\.x-k8s\.io\n\s+resources:\n\s+- clusters/);
  });

  test('on a Node that needs it, the project carries the undici override', () => {
    const files = renderProject({ name: 'a', provider: providerChoice('kind', 'a'), versions: pinnedVersions(), undiciOverride: true });
    expect(JSON.parse(files['package.json']!).overrides).toEqual({ undici: '^7' });
  });

  test('provider-specific files: the access file for ClusterProfiles, the kcp-side RBAC for kcp, the garden-side RBAC for Gardener', () => {
    const render = (id: (typeof providerIds)[number]) =>
      Object.keys(renderProject({ name: 'a', provider: providerChoice(id, 'a'), versions: pinnedVersions(), undiciOverride: false }));
    expect(render('cluster-profiles')).toContain('deploy/10-access-config.yaml');
    expect(render('kcp')).toContain('deploy/kcp/rbac.yaml');
    expect(render('gardener')).toContain('deploy/garden/rbac.yaml');
    expect(render('kind').filter((f) => f.startsWith('deploy/'))).toHaveLength(4);
  });

  test('a folder that exists and is not empty is refused, and nothing is written', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    expect(() => scaffold({ dir, name: 'a', provider: 'kind' })).toThrow(TargetNotEmptyError);
    expect(readdirSync(dir)).toEqual(['notes.txt']);
    // An empty folder is fine.
    const empty = join(tempDir(), 'empty');
    mkdirSync(empty);
    expect(scaffold({ dir: empty, name: 'a', provider: 'kind' }).files.length).toBeGreaterThan(10);
  });

  test('a name that cannot name the package and the Kubernetes objects is refused before anything is written', () => {
    const dir = join(tempDir(), 'x');
    for (const name of ['My_Controller', '-a', 'a'.repeat(41), '']) {
      expect(() => scaffold({ dir, name, provider: 'kind' }), name).toThrow(UsageError);
    }
    expect(() => scaffold({ dir, name: 'a', provider: 'docker' as 'kind' })).toThrow(
      /unknown provider "docker": choose one of kubeconfig-secrets, /,
    );
    expect(() => readdirSync(dir)).toThrow(/ENOENT/);
  });
});

describe('command line', () => {
  const answers = (...replies: string[]): Asker & { questions: string[]; said: string[] } => {
    const questions: string[] = [];
    const said: string[] = [];
    return {
      questions,
      said,
      say: (line) => said.push(line),
      ask: (q) => {
        questions.push(q);
        return Promise.resolve(replies.shift() ?? '');
      },
      close: () => {},
    };
  };
  const invocation = (...argv: string[]) => {
    const parsed = parseCommandLine(argv);
    if (parsed.help) throw new Error('unexpected --help');
    return parsed;
  };

  test('flags win; --yes takes the folder name and kubeconfig Secrets for the rest', async () => {
    expect(await resolveOptions(invocation('my-ctl', '--provider', 'milo', '--name', 'other'), undefined)).toEqual({
      dir: 'my-ctl',
      name: 'other',
      provider: 'milo',
    });
    expect(await resolveOptions(invocation('some/where/My-Ctl', '--yes'), undefined)).toEqual({
      dir: 'some/where/My-Ctl',
      name: 'my-ctl',
      provider: 'kubeconfig-secrets',
    });
  });

  test('on a terminal it asks for what is missing, again until the answer is valid', async () => {
    const asker = answers('Bad_Name', 'good-name', 'nope', 'kcp');
    expect(await resolveOptions(invocation('dir'), asker)).toEqual({ dir: 'dir', name: 'good-name', provider: 'kcp' });
    expect(asker.questions).toEqual(['Name? (dir) ', 'Name? (dir) ', 'Provider? (kubeconfig-secrets) ', 'Provider? (kubeconfig-secrets) ']);
    expect(asker.said).toEqual([
      expect.stringContaining('invalid name "Bad_Name"'),
      expect.stringMatching(/kubeconfig-secrets +kubeconfig Secrets on the host[\s\S]+milo +Milo projects/),
      expect.stringContaining('unknown provider "nope"'),
    ]);
  });

  test('with no terminal and no --yes, every missing flag is named at once', async () => {
    await expect(resolveOptions(invocation('dir'), undefined)).rejects.toThrow(
      'no terminal to ask on: give --name, --provider, or --yes for the defaults',
    );
  });

  test('bad flags are usage errors', () => {
    expect(() => parseCommandLine(['a', 'b'])).toThrow(UsageError);
    expect(() => parseCommandLine(['--provider', 'docker'])).toThrow(UsageError);
    expect(() => parseCommandLine(['--frobnicate'])).toThrow(UsageError);
    expect(parseCommandLine(['-h'])).toEqual({ help: true });
  });
});
