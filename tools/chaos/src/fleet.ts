/**
 * The fleet under chaos: a host and N member in-memory API servers, each member published to the file provider as a
 * kubeconfig file (written beside and renamed, so no half file is read). Members leave (file removed), join, rotate
 * credentials (a new token), go down and come back with their state, or are replaced by a new server with no state
 * at a new address. Each member has an admin client for the writer and the checker, which never goes through the
 * controller under test.
 */
import { mkdtemp, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { newCluster } from '@multicluster-runtime/core';
import type { KubeCluster } from '@multicluster-runtime/core/cluster';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';

export interface Member {
  readonly name: string;
  server: ApiServer;
  admin: KubeCluster;
  /** Its kubeconfig file is in the folder. */
  joined: boolean;
  /** Its server is stopped (state kept) until restarted. */
  down: boolean;
  /** The kubeconfig's bearer token, once rotated. */
  token?: string;
}

export function configOf(kubeconfig: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  return kc;
}

export class ChaosFleet {
  private rotations = 0;

  private constructor(
    readonly host: ApiServer,
    readonly members: Member[],
    /** The folder the file provider watches. */
    readonly dir: string,
  ) {}

  static async start(count: number): Promise<ChaosFleet> {
    const dir = await mkdtemp(join(tmpdir(), 'mcr-chaos-'));
    const host = await startApiServer({ name: 'host' });
    const servers = await Promise.all(Array.from({ length: count }, (_, i) => startApiServer({ name: `member-${i}` })));
    const members = servers.map((server) => ({ name: server.name, server, admin: adminOf(server), joined: false, down: false }));
    const fleet = new ChaosFleet(host, members, dir);
    for (const m of members) await fleet.join(m);
    return fleet;
  }

  hostConfig(): KubeConfig {
    return configOf(this.host.kubeconfig());
  }

  async join(m: Member): Promise<void> {
    const file = join(this.dir, `${m.name}.kubeconfig`);
    const text = m.token ? m.server.kubeconfig({ user: { token: m.token } }) : m.server.kubeconfig();
    await writeFile(`${file}.tmp`, text, { mode: 0o600 });
    await rename(`${file}.tmp`, file);
    m.joined = true;
  }

  async leave(m: Member): Promise<void> {
    await unlink(join(this.dir, `${m.name}.kubeconfig`)).catch(() => {});
    m.joined = false;
  }

  /** New credentials for the same server: the provider re-engages the member. */
  async rotate(m: Member): Promise<void> {
    m.token = `chaos-${++this.rotations}`;
    m.server.addToken(m.token, 'admin');
    if (m.joined) await this.join(m);
  }

  async down(m: Member): Promise<void> {
    m.down = true;
    await m.server.stop();
  }

  async up(m: Member): Promise<void> {
    if (!m.down) return;
    await m.server.restart();
    m.down = false;
  }

  /** A new server with no state at a new address, under the same member name. */
  async replace(m: Member): Promise<void> {
    await m.admin.close();
    await m.server.close();
    m.server = await startApiServer({ name: m.name });
    m.admin = adminOf(m.server);
    m.down = false;
    m.token = undefined;
    if (m.joined) await this.join(m);
  }

  /** Every member joined, up and answering at full speed. */
  async heal(): Promise<void> {
    for (const m of this.members) {
      await this.up(m);
      m.server.faults.setLatency(0);
      if (!m.joined) await this.join(m);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.members.map((m) => m.admin.close()));
    await Promise.all([this.host, ...this.members.map((m) => m.server)].map((s) => s.close()));
    await rm(this.dir, { recursive: true, force: true });
  }
}

function adminOf(server: ApiServer): KubeCluster {
  return newCluster(configOf(server.kubeconfig()), { name: `${server.name}-admin` });
}
