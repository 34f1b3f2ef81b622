/**
 * A program under test, run as a real child process: its output is collected so a test can await a line, and it
 * can be asked to stop with a signal and awaited. `stop()` is safe to call from afterEach whatever happened.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class RunningProgram {
  private out = '';
  private readonly child: ChildProcess;
  readonly exited: Promise<Exit>;

  constructor(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
    this.child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout?.setEncoding('utf8').on('data', (s: string) => {
      this.out += s;
    });
    this.child.stderr?.setEncoding('utf8').on('data', (s: string) => {
      this.out += s;
    });
    this.exited = new Promise((resolve) => {
      this.child.on('error', (err) => {
        this.out += `\n[spawn error] ${err.message}\n`;
        resolve({ code: null, signal: null });
      });
      this.child.on('close', (code, signal) => resolve({ code, signal }));
    });
  }

  /** stdout and stderr so far, interleaved as they arrived. */
  output(): string {
    return this.out;
  }

  running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends `signal`; resolves with how the program ended, or rejects after `timeoutMs` (the program is killed). */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 15_000): Promise<Exit> {
    if (!this.running()) return this.exited;
    this.child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.child.kill('SIGKILL');
        reject(new Error(`program did not exit within ${timeoutMs} ms of ${signal}; output:\n${this.out}`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([this.exited, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
