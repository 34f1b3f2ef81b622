/**
 * The bench's handle on the members fleet server child (members-fleet-server.ts): Milo projects or namespaces, N
 * members of M ConfigMaps each, in its own process so that its memory never counts against the runner's.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JsonLineProcess } from '../child.js';
import type { MembersKind } from './members-fleet-server.js';

const serverScript = fileURLToPath(new URL('./members-fleet-server.js', import.meta.url));

export class MembersFleetProcess {
  private constructor(
    private readonly proc: JsonLineProcess,
    private readonly dir: string,
    readonly kind: MembersKind,
    readonly members: number,
    readonly objects: number,
  ) {}

  /** Starts the server and resolves once every member and its ConfigMaps exist. */
  static async start(kind: MembersKind, members: number, objects: number): Promise<MembersFleetProcess> {
    const dir = await mkdtemp(join(tmpdir(), `mcr-bench-${kind}-`));
    const proc = new JsonLineProcess(`${kind} fleet server`, process.execPath, [
      serverScript,
      '--kind',
      kind,
      '--members',
      String(members),
      '--objects',
      String(objects),
      '--dir',
      dir,
    ]);
    const fleet = new MembersFleetProcess(proc, dir, kind, members, objects);
    try {
      await proc.waitForMessage('ready', 60_000 + members * (100 + objects * 50));
    } catch (err) {
      await fleet.close();
      throw err;
    }
    return fleet;
  }

  /** Labels a namespaces fleet's late joiners as members; resolves with how many once every label is written. */
  async join(): Promise<number> {
    const reply = await this.proc.request<{ type: string; joiners?: number; message?: string }>('join', 60_000);
    if (reply.type !== 'joined' || reply.joiners === undefined)
      throw new Error(`${this.kind} fleet server: ${reply.message ?? 'no joiners'}`);
    return reply.joiners;
  }

  /** The admin kubeconfig: Milo's API (Projects, and each project's control plane under it), or the namespaces' host. */
  get kubeconfigPath(): string {
    return join(this.dir, 'host.kubeconfig');
  }

  async close(): Promise<void> {
    await this.proc.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}
