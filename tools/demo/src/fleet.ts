/**
 * The embedded fleet: an in-memory host API server plus member servers that join and leave over time. A member
 * joins by having its kubeconfig file written into a folder (which the file provider watches) and leaves by having
 * it deleted; its server stops shortly after, as a real cluster going away would.
 */
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { newCluster } from '@multicluster-runtime/core';
import { sleep } from '@multicluster-runtime/core/signal';
import type { Client } from '@multicluster-runtime/core';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';

export const demoNamespace = 'demo';
const configMap = { apiVersion: 'v1', kind: 'ConfigMap' };

interface Member {
  readonly name: string;
  readonly server: ApiServer;
  readonly client: Client;
  readonly file: string;
}

export type FleetEvent = { type: 'joined' | 'left'; member: string };

export class EmbeddedFleet {
  private readonly members = new Map<string, Member>();
  private next = 1;
  private closed = false;

  private constructor(
    readonly host: ApiServer,
    /** The folder of member kubeconfig files. */
    readonly dir: string,
    private readonly onEvent: (e: FleetEvent) => void,
  ) {}

  static async start(initial: number, onEvent: (e: FleetEvent) => void = () => {}): Promise<EmbeddedFleet> {
    const [host, dir] = await Promise.all([startApiServer({ name: 'host' }), mkdtemp(join(tmpdir(), 'mcr-demo-fleet-'))]);
    const fleet = new EmbeddedFleet(host, dir, onEvent);
    await Promise.all(Array.from({ length: initial }, () => fleet.join()));
    return fleet;
  }

  /** The host's kubeconfig, loaded. */
  hostConfig(): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromString(this.host.kubeconfig());
    return kc;
  }

  size(): number {
    return this.members.size;
  }

  /** Starts a member, seeds it with ConfigMaps, then publishes its kubeconfig file. */
  async join(): Promise<string> {
    const name = `member-${this.next++}`;
    const server = await startApiServer({ name });
    const kc = new KubeConfig();
    kc.loadFromString(server.kubeconfig({ contextName: name }));
    const client = newCluster(kc, { name }).client;
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: demoNamespace } });
    for (const app of ['web', 'api', 'worker']) {
      await client.create({
        ...configMap,
        metadata: { name: app, namespace: demoNamespace, labels: { 'app.kubernetes.io/part-of': 'demo' } },
        data: { replicas: '1', owner: name },
      });
    }
    const file = join(this.dir, `${name}.kubeconfig`);
    // Written beside and renamed, so the watcher never sees half a file.
    await writeFile(`${file}.tmp`, server.kubeconfig({ contextName: name }), { mode: 0o600 });
    await rename(`${file}.tmp`, file);
    this.members.set(name, { name, server, client, file });
    this.onEvent({ type: 'joined', member: name });
    return name;
  }

  /** Removes the oldest member's kubeconfig, then stops its server. */
  async leave(): Promise<string | undefined> {
    const member = this.members.values().next().value;
    if (!member) return undefined;
    this.members.delete(member.name);
    await rm(member.file, { force: true });
    this.onEvent({ type: 'left', member: member.name });
    await member.server.close();
    return member.name;
  }

  /** Joins and leaves members every `everyMs` between one and `max` members, until `signal` aborts. */
  async churn(signal: AbortSignal, everyMs: number, max: number): Promise<void> {
    while (!signal.aborted && !this.closed) {
      await sleep(everyMs, signal);
      if (signal.aborted || this.closed) return;
      const grow = this.members.size <= 1 || (this.members.size < max && Math.random() < 0.55);
      await (grow ? this.join() : this.leave()).catch(() => undefined);
    }
  }

  /** Changes a random ConfigMap in a random member every `everyMs`, so the controllers have work. */
  async load(signal: AbortSignal, everyMs: number): Promise<void> {
    let tick = 0;
    while (!signal.aborted && !this.closed) {
      await sleep(everyMs, signal);
      const members = [...this.members.values()];
      const member = members[Math.floor(Math.random() * members.length)];
      if (!member || signal.aborted) continue;
      const app = ['web', 'api', 'worker'][tick++ % 3]!;
      await member.client
        .patch(configMap, { namespace: demoNamespace, name: app }, { type: 'merge', body: { data: { replicas: String(1 + (tick % 5)) } } })
        .catch(() => undefined); // the member may be leaving right now
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const members = [...this.members.values()];
    this.members.clear();
    await Promise.all(members.map((m) => m.server.close()));
    await this.host.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}
