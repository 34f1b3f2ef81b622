/**
 * The bench's handle on the fleet server child (fleet-server.ts): starts it, knows where its kubeconfigs are, and
 * publishes clusters to implementations the way a user would: a kubeconfig file appearing in a watched folder
 * (written beside and renamed, so no one reads half a file) or a kubeconfig Secret created on the host.
 */
import { mkdir, mkdtemp, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { isNotFound } from '@multicluster-runtime/core';
import { Transport } from '@multicluster-runtime/core/client';
import { JsonLineProcess } from '../child.js';
import { profileArgs } from '../impls.js';
import { nowMicros } from '../protocol.js';
import { BENCH_NAMESPACE } from './fleet-names.js';

const serverScript = fileURLToPath(new URL('./fleet-server.js', import.meta.url));
const secretLabel = 'sigs.k8s.io/multicluster-runtime-kubeconfig';

export interface FleetStats {
  connections: number;
  requests: number;
  openWatches: number;
  /** CPU time the fleet server has used since it started, ms: what serving the writer and the watchers cost. */
  cpuMs: number;
}

export class FleetProcess {
  private readonly kubeconfigs = new Map<number, string>();
  private hostTransport: Transport | undefined;

  private constructor(
    private readonly proc: JsonLineProcess,
    /** Where the fleet server wrote its kubeconfigs. */
    readonly poolDir: string,
    /** A scratch folder for the bench: per-run watched folders live under it. */
    readonly workDir: string,
    readonly members: number,
    readonly objects: number,
  ) {}

  static async start(members: number, objects: number): Promise<FleetProcess> {
    const workDir = await mkdtemp(join(tmpdir(), 'mcr-bench-'));
    const poolDir = join(workDir, 'pool');
    await mkdir(poolDir);
    const proc = new JsonLineProcess('fleet server', process.execPath, [
      // Profiled like the runners when asked: every event passes through these servers.
      ...profileArgs(),
      serverScript,
      '--members',
      String(members),
      '--objects',
      String(objects),
      '--dir',
      poolDir,
    ]);
    const fleet = new FleetProcess(proc, poolDir, workDir, members, objects);
    try {
      await proc.waitForMessage('ready', 60_000 + members * (200 + objects * 20));
    } catch (err) {
      await fleet.close();
      throw err;
    }
    return fleet;
  }

  get hostKubeconfigPath(): string {
    return join(this.poolDir, 'host.kubeconfig');
  }

  memberKubeconfigPath(i: number): string {
    return join(this.poolDir, `member-${i}.kubeconfig`);
  }

  async memberKubeconfig(i: number): Promise<string> {
    let text = this.kubeconfigs.get(i);
    if (text === undefined) {
      text = await readFile(this.memberKubeconfigPath(i), 'utf8');
      this.kubeconfigs.set(i, text);
    }
    return text;
  }

  /** A new empty folder for an implementation to watch. */
  async newWatchDir(label: string): Promise<string> {
    return mkdtemp(join(this.workDir, `${label}-`));
  }

  /** Publishes member `i` as cluster `id` in `dir`; returns when it was published (µs since the epoch). */
  async publishFile(dir: string, id: string, i: number): Promise<number> {
    const text = await this.memberKubeconfig(i);
    const file = join(dir, `${id}.kubeconfig`);
    await writeFile(`${file}.tmp`, text, { mode: 0o600 });
    const t = nowMicros();
    await rename(`${file}.tmp`, file);
    return t;
  }

  async unpublishFile(dir: string, id: string): Promise<void> {
    await unlink(join(dir, `${id}.kubeconfig`)).catch(() => {});
  }

  private host(): Transport {
    if (!this.hostTransport) {
      const kc = new KubeConfig();
      kc.loadFromFile(this.hostKubeconfigPath);
      this.hostTransport = Transport.forConfig(kc);
    }
    return this.hostTransport;
  }

  /** A namespace of its own on the host, for a runner's kubeconfig Secrets (`label` names it). */
  async newSecretNamespace(label: string): Promise<string> {
    const name = `secrets-${label}`;
    const body = { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
    await this.host().request({ method: 'POST', path: '/api/v1/namespaces', body });
    return name;
  }

  /** Publishes member `i` as the kubeconfig Secret `id` (in `namespace`); returns when it was sent (µs since the epoch). */
  async publishSecret(id: string, i: number, namespace = BENCH_NAMESPACE): Promise<number> {
    const data = Buffer.from(await this.memberKubeconfig(i)).toString('base64');
    const body = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: id, namespace, labels: { [secretLabel]: 'true' } },
      data: { kubeconfig: data },
    };
    const t = nowMicros();
    await this.host().request({ method: 'POST', path: `/api/v1/namespaces/${namespace}/secrets`, body });
    return t;
  }

  /** Rewrites the kubeconfig Secret `id` in place (an update, not a delete and create) to reach member `i`. */
  async rotateSecret(id: string, i: number): Promise<void> {
    const path = `/api/v1/namespaces/${BENCH_NAMESPACE}/secrets/${id}`;
    const secret = await this.host().request<{ metadata: Record<string, unknown> }>({ method: 'GET', path });
    const data = Buffer.from(await this.memberKubeconfig(i)).toString('base64');
    await this.host().request({ method: 'PUT', path, body: { ...secret, data: { kubeconfig: data } } });
  }

  async unpublishSecret(id: string, namespace = BENCH_NAMESPACE): Promise<void> {
    await this.host()
      .request({ method: 'DELETE', path: `/api/v1/namespaces/${namespace}/secrets/${id}` })
      .catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
  }

  async stats(): Promise<FleetStats> {
    return this.proc.request<FleetStats>('stats');
  }

  async close(): Promise<void> {
    await this.hostTransport?.close();
    await this.proc.stop();
    await rm(this.workDir, { recursive: true, force: true });
  }
}
