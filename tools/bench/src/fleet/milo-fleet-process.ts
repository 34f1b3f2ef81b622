/**
 * The bench's handle on the Milo fleet server child (milo-fleet-server.ts): a fake Milo with N ready projects of M
 * ConfigMaps each, in its own process so that its memory never counts against the runner's.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JsonLineProcess } from '../child.js';

const serverScript = fileURLToPath(new URL('./milo-fleet-server.js', import.meta.url));

export class MiloFleetProcess {
  private constructor(
    private readonly proc: JsonLineProcess,
    private readonly dir: string,
    readonly projects: number,
    readonly objects: number,
  ) {}

  /** Starts the server and resolves once every project and its ConfigMaps exist. */
  static async start(projects: number, objects: number): Promise<MiloFleetProcess> {
    const dir = await mkdtemp(join(tmpdir(), 'mcr-bench-milo-'));
    const proc = new JsonLineProcess('milo fleet server', process.execPath, [
      serverScript,
      '--projects',
      String(projects),
      '--objects',
      String(objects),
      '--dir',
      dir,
    ]);
    const fleet = new MiloFleetProcess(proc, dir, projects, objects);
    try {
      await proc.waitForMessage('ready', 60_000 + projects * (100 + objects * 50));
    } catch (err) {
      await fleet.close();
      throw err;
    }
    return fleet;
  }

  /** Milo's admin kubeconfig: where Projects are watched and, under it, every project's control plane. */
  get kubeconfigPath(): string {
    return join(this.dir, 'milo.kubeconfig');
  }

  async close(): Promise<void> {
    await this.proc.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}
