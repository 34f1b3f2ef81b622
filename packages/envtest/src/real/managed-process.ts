/**
 * A control-plane child process (etcd or kube-apiserver) that is always reaped: its output is drained into a
 * bounded tail kept for error messages, stop() sends SIGTERM then SIGKILL after a grace period, and the end of
 * the test runner SIGKILLs it (an 'exit' handler, and on Linux the parent-death signal for hard kills).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { onProcessExit } from './exit-cleanup.js';
import { dieWithParent } from './parent-death.js';
import { ProcessExitedError, ProcessStopError } from './errors.js';

/** How a process ended. */
export interface ExitStatus {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface ManagedProcessOptions {
  /** Name used in errors and output lines, e.g. "etcd". */
  readonly component: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  /** Receives every output line as it arrives (for verbose test runs). */
  readonly onOutput?: (component: string, line: string) => void;
  /** Bytes of output kept for error messages. */
  readonly tailBytes?: number;
}

const defaultTailBytes = 16 * 1024;

export class ManagedProcess {
  readonly component: string;
  /** Resolves once the process has exited (or failed to spawn); never rejects. */
  readonly exited: Promise<ExitStatus>;
  private readonly child: ChildProcess;
  private status: ExitStatus | undefined;
  private tail = '';
  private readonly tailBytes: number;
  private readonly unregisterExitCleanup: () => void;
  private stopping: Promise<void> | undefined;

  private constructor(options: ManagedProcessOptions) {
    this.component = options.component;
    this.tailBytes = options.tailBytes ?? defaultTailBytes;
    const { command, args } = dieWithParent(options.command, options.args);
    this.child = spawn(command, args, {
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const onOutput = options.onOutput;
    const collect = (chunk: Buffer): void => {
      const text = chunk.toString('utf8');
      this.tail = (this.tail + text).slice(-this.tailBytes);
      if (onOutput) for (const line of text.split('\n')) if (line) onOutput(this.component, line);
    };
    this.child.stdout?.on('data', collect);
    this.child.stderr?.on('data', collect);
    this.exited = new Promise<ExitStatus>((resolveExit) => {
      // 'error' without 'exit' happens when spawning fails (ENOENT, EACCES); record it as an exit with no code.
      this.child.once('error', (err) => {
        collect(Buffer.from(`\nspawn failed: ${err.message}\n`));
        if (this.child.pid === undefined) this.finish({ code: null, signal: null }, resolveExit);
      });
      this.child.once('exit', (code, signal) => this.finish({ code, signal }, resolveExit));
    });
    this.unregisterExitCleanup = onProcessExit(() => this.child.kill('SIGKILL'));
  }

  /** Spawns the process. Spawn failures surface through `exited` and `failure()`, never as a throw. */
  static spawn(options: ManagedProcessOptions): ManagedProcess {
    return new ManagedProcess(options);
  }

  /** The operating-system process id, or undefined if spawning failed. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** How the process ended, or undefined while it runs. */
  get exitStatus(): ExitStatus | undefined {
    return this.status;
  }

  /** The last output lines (stdout and stderr interleaved). */
  outputTail(lines = 40): string {
    return this.tail.trimEnd().split('\n').slice(-lines).join('\n');
  }

  /**
   * The error describing an early exit, for callers that were waiting for readiness. Quotes the error lines of
   * the output (klog `E`/`F` lines, etcd's error-level JSON lines) when there are any, else its last lines.
   */
  failure(): ProcessExitedError {
    const lines = this.tail.trimEnd().split('\n');
    const errors = lines.filter((line) => /^[EF]\d{4} |"level":"(error|fatal|panic)"|^Error:|spawn failed:/.test(line));
    const quoted = (errors.length > 0 ? errors : lines).slice(-10).join('\n');
    return new ProcessExitedError(this.component, this.status?.code ?? null, this.status?.signal ?? null, quoted);
  }

  /**
   * Stops the process: SIGTERM, then SIGKILL after `graceMs`. Resolves once it has exited; idempotent. Rejects
   * with ProcessStopError only if even SIGKILL did not end it within `killWaitMs`.
   */
  stop(graceMs = 10_000, killWaitMs = 5_000): Promise<void> {
    this.stopping ??= this.terminate(graceMs, killWaitMs);
    return this.stopping;
  }

  private async terminate(graceMs: number, killWaitMs: number): Promise<void> {
    if (this.status === undefined && this.child.pid !== undefined) {
      this.child.kill('SIGTERM');
      if (!(await this.exitedWithin(graceMs))) {
        this.child.kill('SIGKILL');
        if (!(await this.exitedWithin(killWaitMs))) {
          throw new ProcessStopError(`${this.component} (pid ${this.child.pid}) did not exit after SIGKILL`);
        }
      }
    }
    await this.exited;
  }

  private finish(status: ExitStatus, resolveExit: (status: ExitStatus) => void): void {
    if (this.status !== undefined) return;
    this.status = status;
    this.unregisterExitCleanup();
    resolveExit(status);
  }

  private async exitedWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolveTimeout) => {
      timer = setTimeout(() => resolveTimeout(false), ms);
    });
    try {
      return await Promise.race([this.exited.then(() => true as const), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }
}
