/** The bench's handle on the `projects` scenario's runner (runners/milo-runner.ts), in its own process. */
import { fileURLToPath } from 'node:url';
import { JsonLineProcess } from './child.js';
import { ChildProcessFailedError } from './errors.js';
import type { ErrorReply, MemoryReply } from './protocol.js';
import type { MiloEngageReply, MiloWatchReply } from './runners/milo-runner.js';

const runnerScript = fileURLToPath(new URL('./runners/milo-runner.js', import.meta.url));

export class MiloRunnerProcess {
  private constructor(private readonly proc: JsonLineProcess) {}

  static async start(kubeconfigPath: string, projects: number, objects: number): Promise<MiloRunnerProcess> {
    const proc = new JsonLineProcess('mcr milo runner', process.execPath, [
      '--expose-gc',
      runnerScript,
      '--kubeconfig',
      kubeconfigPath,
      '--projects',
      String(projects),
      '--objects',
      String(objects),
    ]);
    const runner = new MiloRunnerProcess(proc);
    try {
      await proc.waitForMessage('ready', 60_000);
    } catch (err) {
      await runner.stop();
      throw err;
    }
    return runner;
  }

  private async ask<T>(cmd: string, timeoutMs: number): Promise<T> {
    const reply = await this.proc.request<T | ErrorReply>(cmd, timeoutMs);
    if ((reply as ErrorReply).type === 'error') throw new ChildProcessFailedError(`mcr milo runner: ${(reply as ErrorReply).message}`);
    return reply as T;
  }

  /** Heap and RSS after forced GC. */
  memory(): Promise<MemoryReply> {
    return this.ask<MemoryReply>('memory', 120_000);
  }

  /** Starts the manager; resolves once every project is engaged. */
  engage(timeoutMs: number): Promise<MiloEngageReply> {
    return this.ask<MiloEngageReply>('engage', timeoutMs);
  }

  /** Adds the ConfigMap controller; resolves once every project's ConfigMaps were reconciled. */
  watch(timeoutMs: number): Promise<MiloWatchReply> {
    return this.ask<MiloWatchReply>('watch', timeoutMs);
  }

  stop(): Promise<void> {
    return this.proc.stop();
  }
}
