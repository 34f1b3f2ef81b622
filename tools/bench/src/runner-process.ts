/** The bench's handle on one implementation under test, running in its own process (see protocol.ts). */
import { JsonLineProcess } from './child.js';
import { ChildProcessFailedError } from './errors.js';
import type { ErrorReply, MemoryReply, ResetReply, StatsReply } from './protocol.js';
import type { ProviderKind } from './runners/runner-args.js';

/** How to start an implementation: the command and the arguments before the runner's own flags. */
export interface ImplSpec {
  /** Short name in tables and JSON: mcr, client-node, go-mcr. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
}

export interface RunnerOptions {
  provider: ProviderKind;
  dir: string;
  hostKubeconfig: string;
  namespace: string;
  concurrency: number;
}

/** The id the bench gave a cluster, from the name an implementation engaged it under (a path+context, or a name). */
export function clusterIdOf(name: string): string {
  const base = name.slice(name.lastIndexOf('/') + 1);
  return base.replace(/\.kubeconfig(\+.*)?$/, '');
}

export class RunnerProcess {
  /** Time (µs since the epoch) of each cluster's first reconcile, by cluster id. */
  readonly firsts = new Map<string, number>();
  private readonly proc: JsonLineProcess;

  private constructor(
    readonly impl: ImplSpec,
    opts: RunnerOptions,
  ) {
    this.proc = new JsonLineProcess(`${impl.name} runner`, impl.command, [
      ...impl.args,
      '--provider',
      opts.provider,
      '--dir',
      opts.dir,
      '--host-kubeconfig',
      opts.hostKubeconfig,
      '--namespace',
      opts.namespace,
      '--concurrency',
      String(opts.concurrency),
    ]);
    this.proc.onMessage((m) => {
      if (m.type === 'first' && typeof m['cluster'] === 'string' && typeof m['t'] === 'number') {
        const id = clusterIdOf(m['cluster']);
        if (!this.firsts.has(id)) this.firsts.set(id, m['t']);
      }
    });
  }

  static async start(impl: ImplSpec, opts: RunnerOptions): Promise<RunnerProcess> {
    const runner = new RunnerProcess(impl, opts);
    try {
      await runner.proc.waitForMessage('ready', 60_000);
    } catch (err) {
      await runner.stop();
      throw err;
    }
    return runner;
  }

  /**
   * Whether each cluster of `ids` has had its first reconcile. Throws if the runner has exited, which would otherwise
   * leave a poll of this waiting out its whole timeout.
   */
  reconciledAll(ids: readonly string[]): boolean {
    this.proc.throwIfExited();
    return ids.every((id) => this.firsts.has(id));
  }

  async engaged(): Promise<number> {
    const reply = await this.proc.request<{ clusters: number }>('engaged');
    return reply.clusters;
  }

  /** Clears reconcile counts and samples; returns the runner's CPU time so far (ms). */
  async reset(): Promise<number> {
    return (await this.proc.request<ResetReply>('reset')).cpuMs;
  }

  async stats(): Promise<StatsReply> {
    return this.proc.request<StatsReply>('stats');
  }

  async memory(): Promise<MemoryReply> {
    const reply = await this.proc.request<MemoryReply | ErrorReply>('memory', 120_000);
    if (reply.type === 'error') throw new ChildProcessFailedError(`${this.impl.name}: ${reply.message}`);
    return reply;
  }

  stop(): Promise<void> {
    return this.proc.stop();
  }
}
