/**
 * A README example scenario: what a package's example needs around it (servers, kubeconfig files, Secrets, a CLI on
 * PATH), what it must visibly do, and how it must end. The same scenario runs against the workspace build (in
 * `npm test`) and against packages installed from their tarballs (the pack test).
 */
import type { RunningProgram } from '../child-process.js';
import type { ExampleFixtures } from './fixtures.js';

export interface ExampleStep {
  /** Done once the previous step's output has appeared (e.g. change something in a member cluster). */
  act?: () => Promise<void>;
  /** Every pattern must appear in the example's output (stdout and stderr). */
  expect: RegExp[];
}

export interface PreparedExample {
  /** Working directory of the example (relative paths in it resolve here). */
  cwd: string;
  /** Environment the example reads, e.g. KUBECONFIG. */
  env: Record<string, string>;
  steps: ExampleStep[];
  /** Patterns that must not appear in the output by the end (e.g. a cluster the example filters out). */
  never?: RegExp[];
  /** True for controllers: they run until SIGTERM and must then exit 0. False: the example ends by itself with 0. */
  runsUntilSignalled: boolean;
}

export interface ExampleScenario {
  /** The README, relative to the repository root. */
  readme: string;
  /** Folders under packages/ the example imports: what the pack test installs from tarballs. */
  packages: string[];
  prepare(fx: ExampleFixtures): Promise<PreparedExample>;
}

export class ExampleFailedError extends Error {
  override readonly name = 'ExampleFailedError';
  constructor(
    readonly readme: string,
    what: string,
    readonly output: string,
  ) {
    super(`README example of ${readme}: ${what}\n--- its output ---\n${output.slice(-6000)}`);
  }
}

export interface ScenarioTimeouts {
  /** For each step's output to appear. */
  stepMs: number;
  /** For the example to exit after SIGTERM (or on its own). */
  exitMs: number;
}

const defaultTimeouts: ScenarioTimeouts = { stepMs: 20_000, exitMs: 15_000 };

/**
 * Runs `start()`'s program through the prepared steps and checks how it ends: a controller must still be running
 * after the last step and exit 0 on SIGTERM; a script must exit 0 by itself. The program is killed on any failure.
 */
export async function playScenario(
  readme: string,
  prepared: PreparedExample,
  start: () => RunningProgram,
  timeouts: Partial<ScenarioTimeouts> = {},
): Promise<void> {
  const t = { ...defaultTimeouts, ...timeouts };
  const program = start();
  try {
    for (const step of prepared.steps) {
      await step.act?.();
      await waitForOutput(readme, program, step.expect, t.stepMs);
    }
    const unwanted = (prepared.never ?? []).filter((p) => p.test(program.output()));
    if (unwanted.length > 0) throw new ExampleFailedError(readme, `printed ${unwanted.join(', ')}`, program.output());
    if (prepared.runsUntilSignalled) {
      if (!program.running()) throw new ExampleFailedError(readme, 'exited before it was asked to stop', program.output());
      const exit = await program.stop('SIGTERM', t.exitMs);
      if (exit.code !== 0) {
        throw new ExampleFailedError(readme, `exited with ${exit.code ?? exit.signal} after SIGTERM, not 0`, program.output());
      }
    } else {
      const exit = await within(program.exited, t.exitMs);
      if (exit === undefined) throw new ExampleFailedError(readme, `did not exit within ${t.exitMs} ms`, program.output());
      if (exit.code !== 0) throw new ExampleFailedError(readme, `exited with ${exit.code ?? exit.signal}, not 0`, program.output());
    }
  } finally {
    if (program.running()) await program.stop('SIGKILL', 5_000).catch(() => undefined);
  }
}

async function waitForOutput(readme: string, program: RunningProgram, patterns: RegExp[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const out = program.output();
    const missing = patterns.filter((p) => !p.test(out));
    if (missing.length === 0) return;
    if (!program.running()) {
      throw new ExampleFailedError(readme, `exited before printing ${missing.join(', ')}`, out);
    }
    if (Date.now() > deadline) {
      throw new ExampleFailedError(readme, `printed no ${missing.join(', ')} within ${timeoutMs} ms`, out);
    }
    await delay(50);
  }
}

/** `promise`'s value, or undefined once `ms` passed; the timer never outlives the call. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
