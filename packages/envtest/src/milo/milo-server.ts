/**
 * `startMiloServer`: an in-memory server that answers like Milo. Its default logical cluster is Milo's core API (the
 * Project and ProjectControlPlane CRDs are installed), and each project's control plane is a logical cluster of the
 * same name, served where Milo serves it: `/apis/resourcemanager.miloapis.com/v1alpha1/projects/<name>/control-plane`.
 * For ProjectControlPlane mode, `internalAddress` is a URL template (`{name}`) that resolves to the same control planes.
 */
import { parse, stringify } from 'yaml';
import type { ApiServer } from '../api-server.js';
import { startApiServer } from '../api-server.js';
import type { ApiServerOptions } from '../server/options.js';
import type { KubeconfigOptions } from '../kubeconfig.js';
import { PROJECTS_PATH, projectControlPlaneMount } from './control-plane-mount.js';
import { MiloFixtures } from './milo-fixtures.js';
import { WrappedApiServer } from '../wrapped-api-server.js';

export type MiloServerOptions = Omit<ApiServerOptions, 'logicalClusters' | 'mounts'>;

export interface MiloServer extends ApiServer {
  /** Create Projects and ProjectControlPlanes and flip their readiness. */
  readonly fixtures: MiloFixtures;
  /** `https://127.0.0.1:<port>/apis/resourcemanager.miloapis.com/v1alpha1/projects/{name}/control-plane`. */
  readonly internalAddress: string;
  /** The URL of one project's control plane. */
  controlPlaneUrl(project: string): string;
  /** A kubeconfig for one project's control plane (admin or a token user). */
  projectKubeconfig(project: string, opts?: Omit<KubeconfigOptions, 'logicalCluster'>): string;
  /** Takes a project's control plane down (every request under it answers 404) or brings it back. */
  setControlPlaneServed(project: string, served: boolean): void;
}

/** Starts a fake Milo; resolves once its CRDs are served. */
export async function startMiloServer(opts: MiloServerOptions = {}): Promise<MiloServer> {
  const down = new Set<string>();
  const server = await startApiServer({ ...opts, logicalClusters: true, mounts: [projectControlPlaneMount((name) => !down.has(name))] });
  const milo = new InMemoryMiloServer(server, down);
  try {
    await milo.fixtures.installCrds(opts.signal);
  } catch (err) {
    await milo.close();
    throw err;
  }
  return milo;
}

class InMemoryMiloServer extends WrappedApiServer implements MiloServer {
  readonly fixtures: MiloFixtures;

  constructor(
    server: ApiServer,
    private readonly down: Set<string>,
  ) {
    super(server);
    this.fixtures = new MiloFixtures(server);
  }

  get internalAddress(): string {
    return `${this.server.url}${PROJECTS_PATH}/{name}/control-plane`;
  }

  controlPlaneUrl(project: string): string {
    return `${this.server.url}${PROJECTS_PATH}/${encodeURIComponent(project)}/control-plane`;
  }

  projectKubeconfig(project: string, opts: Omit<KubeconfigOptions, 'logicalCluster'> = {}): string {
    const doc = parse(this.server.kubeconfig({ contextName: project, ...opts })) as { clusters: { cluster: { server: string } }[] };
    for (const c of doc.clusters) c.cluster.server = this.controlPlaneUrl(project);
    return stringify(doc);
  }

  setControlPlaneServed(project: string, served: boolean): void {
    if (served) this.down.delete(project);
    else this.down.add(project);
  }

  override async close(): Promise<void> {
    this.fixtures.close();
    await this.server.close();
  }
}
