/** The bench's handle on the scale scenarios' runner (runners/members-runner.ts), in its own process. */
import { fileURLToPath } from 'node:url';
import { JsonLineProcess } from './child.js';
import { ChildProcessFailedError } from './errors.js';
import type { ErrorReply, MemoryReply } from './protocol.js';
import type { MembersKind } from './fleet/members-fleet-server.js';
import type { MembersEngageReply, MembersJoinReply, MembersWatchReply } from './runners/members-runner.js';

const runnerScript = fileURLToPath(new URL('./runners/members-runner.js', import.meta.url));

export class MembersRunnerProcess {
  private constructor(private readonly proc: JsonLineProcess) {}

  static async start(kind: MembersKind, kubeconfigPath: string, members: number, objects: number): Promise<MembersRunnerProcess> {
    const proc = new JsonLineProcess(`mcr ${kind} runner`, process.execPath, [
      '--expose-gc',
      runnerScript,
      '--kind',
      kind,
      '--kubeconfig',
      kubeconfigPath,
      '--members',
      String(members),
      '--objects',
      String(objects),
    ]);
    const runner = new MembersRunnerProcess(proc);
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
    if ((reply as ErrorReply).type === 'error') throw new ChildProcessFailedError(`mcr members runner: ${(reply as ErrorReply).message}`);
    return reply as T;
  }

  /** Heap and RSS after forced GC. */
  memory(): Promise<MemoryReply> {
    return this.ask<MemoryReply>('memory', 120_000);
  }

  /** Starts the manager; resolves once every member is engaged. */
  engage(timeoutMs: number): Promise<MembersEngageReply> {
    return this.ask<MembersEngageReply>('engage', timeoutMs);
  }

  /** Adds the ConfigMap controller; resolves once every member's ConfigMaps were reconciled. */
  watch(timeoutMs: number): Promise<MembersWatchReply> {
    return this.ask<MembersWatchReply>('watch', timeoutMs);
  }

  /** Namespaces only: resolves once the fleet's late joiners (labelled after this is sent) are engaged and reconciled. */
  join(timeoutMs: number): Promise<MembersJoinReply> {
    return this.ask<MembersJoinReply>('join', timeoutMs);
  }

  stop(): Promise<void> {
    return this.proc.stop();
  }
}
