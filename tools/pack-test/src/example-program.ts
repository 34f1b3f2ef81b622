/**
 * A README example as a program: its first ```ts block, transpiled to an ES module beside the node_modules it should
 * import from, and run with plain `node` as a user would run it. Node 20 cannot strip types, so TypeScript's
 * transpileModule does (no type-checking here; the pack test type-checks the example against packed declarations).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { RunningProgram } from './child-process.js';
import { readmeExample } from './readme-example.js';

export class ExampleTranspileError extends Error {
  override readonly name = 'ExampleTranspileError';
  constructor(
    readonly readmePath: string,
    details: string,
  ) {
    super(`the example in ${readmePath} does not parse: ${details}`);
  }
}

/**
 * Writes the example of `readmePath` into `dir` as `<name>.ts` (for tsc) and `<name>.mjs` (for node). Returns the
 * path of the .mjs. Its bare imports resolve from `dir`'s node_modules (or the nearest one above it).
 */
export function writeExample(readmePath: string, dir: string, name: string): string {
  const source = readmeExample(readmePath);
  const out = ts.transpileModule(source, {
    fileName: `${name}.ts`,
    reportDiagnostics: true,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
    },
  });
  const errors = (out.diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (errors.length > 0) {
    throw new ExampleTranspileError(readmePath, errors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('; '));
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.ts`), source);
  const program = join(dir, `${name}.mjs`);
  writeFileSync(program, out.outputText);
  return program;
}

/** Runs `program` with node in `cwd` with exactly `env` (plus PATH and HOME unless given). */
export function runExample(program: string, options: { cwd: string; env: Record<string, string> }): RunningProgram {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: options.cwd,
    NODE_OPTIONS: '',
    ...options.env,
  };
  return new RunningProgram(process.execPath, [program], { cwd: options.cwd, env });
}
