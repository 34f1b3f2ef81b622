/**
 * A scaffolded project builds and its test passes, for every provider, against this workspace's packages (the pack
 * test does the same from the tarballs, with npm install). Projects are written under the repository's
 * node_modules/.cache, where Node and TypeScript resolve @multicluster-runtime/* to the workspace; TypeScript and
 * vitest read the packages' sources (the `@multicluster-runtime/source` condition), so no build is needed.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { providerIds } from './providers.js';
import { scaffold } from './scaffold.js';

const run = promisify(execFile);
const repoRoot = resolve(import.meta.dirname, '../../..');
const bin = (tool: string) => join(repoRoot, 'node_modules', '.bin', tool);
let work: string;

beforeAll(() => {
  const cache = join(repoRoot, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  work = mkdtempSync(join(cache, 'create-controller-'));
  for (const provider of providerIds) scaffold({ dir: join(work, provider), name: `ctl-${provider}`, provider });
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

async function output(command: string, args: string[], cwd: string): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 16 << 20 });
    return stdout + stderr;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${e.stdout ?? ''}${e.stderr ?? e.message}`);
  }
}

test('every provider: the project (sources, test, vitest config) type-checks with its own tsconfig', async () => {
  // One compiler run over all of them: each project's tsconfig, plus the condition that reads workspace sources.
  writeFileSync(
    join(work, 'tsconfig.json'),
    JSON.stringify({
      extends: `./${providerIds[0]}/tsconfig.json`,
      compilerOptions: { customConditions: ['@multicluster-runtime/source'] },
      include: providerIds.flatMap((p) => [`${p}/src/**/*.ts`, `${p}/vitest.config.ts`]),
    }),
  );
  expect(await output(bin('tsc'), ['-p', 'tsconfig.json'], work)).toBe('');
}, 180_000);

test('every provider: the project is formatted as its own .prettierrc.json says', async () => {
  const files = ['src', 'vitest.config.ts'];
  for (const provider of providerIds) {
    await output(bin('prettier'), ['--check', ...files], join(work, provider));
  }
}, 120_000);

test("the scaffolded controller's own test passes", async () => {
  const dir = join(work, 'kubeconfig-secrets');
  // The project's vitest config, plus the condition that reads workspace sources.
  writeFileSync(
    join(work, 'vitest.workspace-sources.ts'),
    `import { mergeConfig } from 'vitest/config';
import project from './kubeconfig-secrets/vitest.config.ts';
const conditions = ['@multicluster-runtime/source', 'node', 'import', 'default'];
export default mergeConfig(project, { resolve: { conditions }, ssr: { resolve: { conditions, externalConditions: conditions } } });
`,
  );
  const out = await output(bin('vitest'), ['run', '--config', join(work, 'vitest.workspace-sources.ts'), '--root', dir], dir);
  expect(out).toMatch(/Tests\s+2 passed \(2\)/);
}, 180_000);
