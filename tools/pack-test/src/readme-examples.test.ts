/**
 * Every package README opens with an example, and this runs each one as a user would: transpiled to a module, run
 * by `node` as a child process against in-memory API servers, importing the workspace packages' build (dist/,
 * rebuilt first if a source is newer) through a node_modules link to the repository's. Each example must show its
 * effect (a reconcile line for an object in the right cluster) and a controller must exit 0 on SIGTERM. The examples
 * also type-check, strict, against the built declarations.
 * The same scenarios run against packages installed from their tarballs in pack.test.ts.
 */
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { typecheckProject, writeConsumerTsconfig } from './consumer-project.js';
import { runExample, writeExample } from './example-program.js';
import { ExampleFixtures } from './scenarios/fixtures.js';
import { readmeScenarios } from './scenarios/readme-scenarios.js';
import { playScenario } from './scenarios/scenario.js';
import { buildIfStale } from './workspace-build.js';
import { repoRoot, workspacePackages } from './workspace.js';

let programs: string;
let fx: ExampleFixtures | undefined;

beforeAll(async () => {
  await buildIfStale([...new Set(readmeScenarios.flatMap((s) => s.packages))]);
  programs = mkdtempSync(join(tmpdir(), 'readme-programs-'));
  symlinkSync(join(repoRoot, 'node_modules'), join(programs, 'node_modules'), 'dir');
  writeFileSync(join(programs, 'package.json'), '{ "type": "module" }\n');
  writeConsumerTsconfig(programs, { checkDeclarations: false }); // the pack test checks them, from the tarballs
}, 120_000);

afterEach(async () => {
  await fx?.close();
  fx = undefined;
});
afterAll(() => rmSync(programs, { recursive: true, force: true }));

describe('README examples run as written', () => {
  it('covers the README of every published package', () => {
    const published = workspacePackages()
      .filter((p) => !p.manifest.private)
      .map((p) => `${p.relDir}/README.md`);
    for (const readme of published) expect(existsSync(join(repoRoot, readme)), `${readme} is missing`).toBe(true);
    expect(
      published.filter((r) => !readmeScenarios.some((s) => s.readme === r)),
      'READMEs without a scenario',
    ).toEqual([]);
  });

  it("type-check against the packages' declarations, as a strict user project", async () => {
    for (const s of readmeScenarios) writeExample(join(repoRoot, s.readme), programs, s.readme.replace(/\W+/g, '-'));
    expect(await typecheckProject(programs)).toBe('');
  });

  for (const scenario of readmeScenarios) {
    it(scenario.readme, async () => {
      const program = writeExample(join(repoRoot, scenario.readme), programs, scenario.readme.replace(/\W+/g, '-'));
      fx = new ExampleFixtures();
      const prepared = await scenario.prepare(fx);
      await playScenario(scenario.readme, prepared, () => runExample(program, prepared));
    });
  }
});
