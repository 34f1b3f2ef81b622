/**
 * Upstream Go providers as a child process: tools/go-upstream-providers (built by its build.sh from the Go module
 * proxy, cached by a stamp of its inputs) runs one of them with a uniform controller and reports what it engaged and
 * reconciled as JSON lines, which land in an Observation.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Observation, Seen } from './observation.test-util.js';
import { goMissing as goMissingFor } from '../go-missing.test-util.js';

const run = promisify(execFile);
const buildScript = fileURLToPath(new URL('../../../go-upstream-providers/build.sh', import.meta.url));

/** Why these tests skip, or undefined when Go runs. */
export const goMissing = (): Promise<string | undefined> =>
  goMissingFor('the cross-check builds tools/go-upstream-providers with Go >= 1.26 and the Go module proxy');

/**
 * Builds (or finds current) the Go program, or with `module` 'kind' the kind provider's (a module of its own); a cold
 * Go build cache takes minutes, a warm one a second.
 */
export async function buildUpstreamProviders(timeoutMs: number, module?: 'kind'): Promise<string> {
  try {
    const { stdout } = await run(buildScript, module ? [module] : [], { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
    return stdout.trim().split('\n').pop()!;
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim().split('\n').slice(-10).join('\n');
    throw new Error(`tools/go-upstream-providers/build.sh failed${stderr ? `:\n${stderr}` : ''}`, { cause: err });
  }
}

interface Fact {
  type: string;
  cluster?: string;
  /** Names one engagement, in `engaged` and `disengaged`. */
  engagement?: number;
  namespace?: string;
  name?: string;
  found?: boolean;
  resourceVersion?: string;
  data?: unknown;
  initializers?: unknown;
}

/** One running Go program; its facts go to `observation`, its last stderr lines explain failures. */
export class UpstreamProviders {
  private readonly stderr: string[] = [];
  private readonly exited: Promise<number | null>;
  private exitCode: number | null | undefined;
  private stopping = false;
  /** Facts that are not engagement or reconciles (e.g. `initialized`), in order. */
  readonly otherFacts: Fact[] = [];

  private constructor(
    private readonly child: ChildProcessByStdio<Writable, Readable, Readable>,
    private readonly observation: Observation,
    program: string,
  ) {
    createInterface({ input: child.stdout }).on('line', (line) => this.onLine(line));
    createInterface({ input: child.stderr }).on('line', (line) => {
      this.stderr.push(line);
      if (this.stderr.length > 200) this.stderr.shift();
    });
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exitCode = code;
        if (!this.stopping) observation.fail(`${program} exited with ${code ?? signal}:\n${this.logTail(30)}`);
        resolve(code);
      }),
    );
  }

  /** Starts `bin` (from buildUpstreamProviders) with `args` (`--provider …` and its flags; see its main.go) and more `env`. */
  static start(bin: string, args: string[], observation: Observation, env?: Record<string, string>): UpstreamProviders {
    const child = spawn(bin, ['-v=2', ...args], { stdio: ['pipe', 'pipe', 'pipe'], ...(env ? { env: { ...process.env, ...env } } : {}) });
    return new UpstreamProviders(child, observation, basename(bin));
  }

  logTail(lines: number): string {
    return this.stderr.slice(-lines).join('\n');
  }

  /** Closes its stdin (it stops on EOF) and waits for it to exit; kills it if it does not within `timeoutMs`. */
  async stop(timeoutMs = 15_000): Promise<void> {
    if (this.exitCode !== undefined) return;
    this.stopping = true;
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    await this.exited;
    clearTimeout(timer);
  }

  private onLine(line: string): void {
    let fact: Fact;
    try {
      fact = JSON.parse(line) as Fact;
    } catch {
      this.stderr.push(`(stdout, not JSON) ${line}`);
      return;
    }
    const cluster = fact.cluster ?? '';
    switch (fact.type) {
      case 'engaged':
        return this.observation.engage(cluster, String(fact.engagement ?? ''));
      case 'disengaged':
        return this.observation.disengage(cluster, String(fact.engagement ?? ''));
      case 'reconcile': {
        const seen: Seen = fact.found
          ? { found: true, resourceVersion: fact.resourceVersion ?? '', content: fact.data ?? fact.initializers ?? null }
          : { found: false };
        return this.observation.reconcile(cluster, `${fact.namespace ?? ''}/${fact.name ?? ''}`, seen);
      }
      default:
        this.otherFacts.push(fact);
    }
  }
}
