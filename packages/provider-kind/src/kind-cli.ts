/**
 * The two kind CLI calls the provider needs, through execa: listing clusters and printing one's kubeconfig. Each
 * call has a timeout and is killed when it passes it; every failure becomes a KindCliError saying what went wrong.
 * A kubeconfig is credential material, so stdout is never put into an error.
 */
import { execa } from 'execa';
import { KindCliFailedError, KindCliNotFoundError, KindCliOutputError, KindCliTimeoutError } from './errors.js';

/**
 * Which `kind` binary runs, with what extra environment, and how long one command may take.
 */
export interface KindCliOptions {
  /** Path or name of the kind binary. Default `kind` (looked up on PATH). */
  binary?: string;
  /** Extra environment for the CLI (e.g. DOCKER_HOST, KIND_EXPERIMENTAL_PROVIDER). */
  env?: Record<string, string>;
  /** Per-call timeout. Default 15 s. */
  timeoutMs?: number;
}

// kind names clusters after DNS labels (it prefixes container names with them).
const clusterNamePattern = /^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$/;

/**
 * The two `kind` commands the provider runs (`get clusters`, `get kubeconfig`), with a timeout each.
 */
export class KindCli {
  readonly binary: string;
  private readonly env: Record<string, string>;
  private readonly timeoutMs: number;

  constructor(options: KindCliOptions = {}) {
    this.binary = options.binary ?? 'kind';
    this.env = options.env ?? {};
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  /** Names of the kind clusters, sorted. */
  async listClusters(signal?: AbortSignal): Promise<string[]> {
    const stdout = await this.run(['get', 'clusters'], signal);
    const names = stdout
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    const bad = names.find((name) => !clusterNamePattern.test(name));
    if (bad !== undefined) {
      throw new KindCliOutputError('get clusters', `${JSON.stringify(bad.slice(0, 80))} is not a cluster name`);
    }
    return [...new Set(names)].sort();
  }

  /** The kubeconfig of one cluster, as YAML text (untrusted: load it with loadUntrustedKubeconfig). */
  async getKubeconfig(name: string, signal?: AbortSignal): Promise<string> {
    const stdout = await this.run(['get', 'kubeconfig', '--name', name], signal);
    if (!/^\s*(apiVersion|clusters|kind|contexts|current-context|users|preferences)\s*:/m.test(stdout)) {
      throw new KindCliOutputError(`get kubeconfig --name ${name}`, 'not a kubeconfig');
    }
    return stdout;
  }

  private async run(args: string[], signal?: AbortSignal): Promise<string> {
    const command = args.join(' ');
    const result = await execa(this.binary, args, {
      env: this.env,
      timeout: this.timeoutMs,
      forceKillAfterDelay: 1_000,
      reject: false,
      stdin: 'ignore',
      maxBuffer: 4 * 1024 * 1024,
      ...(signal ? { cancelSignal: signal } : {}),
    });
    if (result.timedOut) throw new KindCliTimeoutError(command, this.timeoutMs);
    const code = (result as { code?: string }).code;
    if (code === 'ENOENT' || code === 'EACCES') throw new KindCliNotFoundError(this.binary, { cause: result.cause });
    if (result.isCanceled) throw new KindCliFailedError(command, undefined, 'cancelled');
    if (result.failed || result.exitCode !== 0) {
      const firstLine =
        String(result.stderr ?? '')
          .split('\n')
          .find((l) => l.trim() !== '')
          ?.trim()
          .slice(0, 300) ?? '';
      throw new KindCliFailedError(command, result.exitCode, firstLine);
    }
    return String(result.stdout);
  }
}
