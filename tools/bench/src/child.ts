/**
 * A child process that talks in JSON lines: commands on stdin, messages on stdout. Replies are matched to commands by
 * `id`; other messages go to listeners. Keeps the tail of stderr so a crash is reported with its reason.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { BenchTimeoutError, ChildProcessFailedError } from './errors.js';

type Message = { id?: number; type: string; [key: string]: unknown };

const stderrTailBytes = 4000;

export class JsonLineProcess {
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, { resolve: (m: Message) => void; reject: (e: Error) => void }>();
  private readonly listeners = new Set<(m: Message) => void>();
  private nextId = 1;
  private stderrTail = '';
  private exitError: Error | undefined;
  readonly exited: Promise<number | null>;

  constructor(
    readonly label: string,
    command: string,
    args: readonly string[],
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
    this.child.stderr!.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-stderrTailBytes);
    });
    // The child may exit while we write to it; the exit is reported through `exited`, not as an EPIPE crash.
    this.child.stdin!.on('error', () => {});
    const lines = createInterface({ input: this.child.stdout! });
    lines.on('line', (line) => this.onLine(line));
    this.exited = new Promise((resolve) => {
      this.child.once('error', (err) => {
        this.fail(new ChildProcessFailedError(`${label} could not start: ${err.message}`, { cause: err }));
        resolve(null);
      });
      this.child.once('exit', (code, signal) => {
        this.fail(new ChildProcessFailedError(`${label} exited (${signal ?? `code ${code}`})${this.describeStderr()}`));
        resolve(code);
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Throws why the process is gone, if it is: for callers that wait on what it sent rather than on a request. */
  throwIfExited(): void {
    if (this.exitError) throw this.exitError;
  }

  private describeStderr(): string {
    const tail = this.stderrTail.trim().split('\n').slice(-8).join('\n');
    return tail ? `: ${tail}` : '';
  }

  private fail(err: Error): void {
    this.exitError ??= err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  private onLine(line: string): void {
    let msg: Message;
    try {
      msg = JSON.parse(line) as Message;
    } catch {
      return; // a stray log line on stdout
    }
    if (typeof msg.id === 'number' && this.pending.has(msg.id)) {
      const p = this.pending.get(msg.id)!;
      this.pending.delete(msg.id);
      p.resolve(msg);
      return;
    }
    for (const l of this.listeners) l(msg);
  }

  onMessage(listener: (m: Message) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the first message of `type` (or matching `match`), or rejects on exit or timeout. */
  waitForMessage(type: string, timeoutMs: number): Promise<Message> {
    if (this.exitError) return Promise.reject(this.exitError);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new BenchTimeoutError(`${this.label}: no "${type}" message after ${timeoutMs} ms${this.describeStderr()}`));
      }, timeoutMs);
      const off = this.onMessage((m) => {
        if (m.type !== type) return;
        clearTimeout(timer);
        off();
        resolve(m);
      });
      void this.exited.then(() => {
        clearTimeout(timer);
        off();
        reject(this.exitError!);
      });
    });
  }

  /** Sends `{id, cmd, ...extra}` and resolves with the reply carrying that id. */
  request<T = Message>(cmd: string, timeoutMs = 60_000): Promise<T> {
    if (this.exitError) return Promise.reject(this.exitError);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new BenchTimeoutError(`${this.label}: no reply to "${cmd}" after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.child.stdin!.write(`${JSON.stringify({ id, cmd })}\n`);
    });
  }

  /** Asks the child to stop (stdin closes), then kills it if it has not exited after `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
