/**
 * The fail-on-warning setup (shared by every project) fails exactly the tests that caused a Node warning, and the
 * file for a warning after its last test, while warning-free tests and files pass. Proven on a child vitest run of
 * the fixtures, read back through its JSON report.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface JsonReport {
  testResults: {
    name: string;
    status: string;
    message: string;
    assertionResults: { title: string; status: string; failureMessages: string[] }[];
  }[];
}

const fixtures = join(import.meta.dirname, 'fixtures');
let dir: string;
let exitCode: number | undefined;
let report: JsonReport;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fail-on-warning-'));
  const out = join(dir, 'report.json');
  const run = await execa(
    'npx',
    ['vitest', 'run', '--config', join(fixtures, 'vitest.fixtures.config.ts'), '--reporter=json', `--outputFile=${out}`],
    {
      cwd: fixtures,
      reject: false,
      env: { NO_COLOR: '1' },
    },
  );
  exitCode = run.exitCode;
  report = JSON.parse(await readFile(out, 'utf8')) as JsonReport;
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const file = (name: string) => report.testResults.find((f) => f.name.endsWith(name))!;
const outcome = (name: string) => Object.fromEntries(file(name).assertionResults.map((a) => [a.title, a.status]));
const failure = (name: string, title: string) =>
  file(name)
    .assertionResults.find((a) => a.title === title)!
    .failureMessages.join('\n');

describe('fail-on-warning', () => {
  it('fails the run, and exactly the tests that emitted a warning', () => {
    expect(exitCode).toBe(1);
    expect(outcome('warns.fixture.ts')).toEqual({
      'passes without a warning': 'passed',
      'adds eleven listeners to one EventTarget': 'failed',
      'raises the limit on purpose, so no warning': 'passed',
      'uses a deprecated API': 'failed',
    });
  });

  it('names the warning and where it was emitted', () => {
    expect(failure('warns.fixture.ts', 'adds eleven listeners to one EventTarget')).toMatch(
      /emitted a warning during this test:\s+MaxListenersExceededWarning: .*11 change listeners added to EventTarget/,
    );
    expect(failure('warns.fixture.ts', 'uses a deprecated API')).toMatch(
      /DeprecationWarning: this API is going away\n\s+at .*warns\.fixture\.ts:\d+/,
    );
  });

  it('fails the file for a warning after its last test', () => {
    expect(file('warns.fixture.ts').status).toBe('failed');
    expect(file('warns.fixture.ts').message).toMatch(
      /emitted a warning after the last test of this file:\s+Warning: late warning during teardown/,
    );
  });

  it('leaves a file without warnings alone', () => {
    expect(file('clean.fixture.ts').status).toBe('passed');
    expect(outcome('clean.fixture.ts')).toEqual({ 'emits nothing': 'passed' });
  });
});
