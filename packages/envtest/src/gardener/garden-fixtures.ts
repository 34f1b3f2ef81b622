/**
 * Test fixtures for a fake garden: install the Gardener CRDs, create Shoots backed by API servers, move them through
 * Gardener's states (last operation, hibernation, deletion), and, for the seed topology, the extensions Cluster and
 * the `gardener` Secret whose token Gardener renews.
 */
import type { ApiServer } from '../api-server.js';
import { AdminClient } from '../admin-client.js';
import { GardenRequestError } from './errors.js';
import { GARDENER_CORE_API_VERSION, GARDENER_EXTENSIONS_API_VERSION, extensionsClusterCrd, shootCrd } from './crds.js';
import { mintKubeconfig, type ShootApiServer } from './kubeconfig-request.js';

/** Gardener's `status.lastOperation` types and states. */
export interface LastOperation {
  type: 'Create' | 'Reconcile' | 'Delete' | 'Migrate' | 'Restore';
  state: 'Processing' | 'Succeeded' | 'Error' | 'Failed' | 'Pending' | 'Aborted';
}

/** How createShoot makes a shoot. */
export interface ShootFixtureOptions {
  /** The API server the shoot's kubeconfigs reach; without one the kubeconfig subresources answer 400. */
  server?: ShootApiServer;
  /** Default: a succeeded Reconcile. `null` leaves the status empty (a shoot Gardener has not picked up yet). */
  lastOperation?: LastOperation | null;
  /** Hibernated from the start. Default false. */
  hibernated?: boolean;
  labels?: Record<string, string>;
}

/** What a seed's `gardener` Secret holds: a kubeconfig valid for `expirationSeconds`. */
export interface SeedClusterOptions {
  /** Lifetime of the token in the Secret's kubeconfig. Default 3600. */
  expirationSeconds?: number;
}

type Shoot = { metadata: { resourceVersion?: string }; spec?: Record<string, unknown>; status?: Record<string, unknown> };

const collection = (namespace: string) => `/apis/${GARDENER_CORE_API_VERSION}/namespaces/${encodeURIComponent(namespace)}/shoots`;
const clustersPath = `/apis/${GARDENER_EXTENSIONS_API_VERSION}/clusters`;

/** The project namespace Gardener gives project `project`. */
export function projectNamespace(project: string): string {
  return `garden-${project}`;
}

/** Gardener's technical ID of a shoot: the seed namespace of its control plane. */
export function technicalId(project: string, name: string): string {
  return `shoot--${project}--${name}`;
}

/** Creates Shoots and seed Clusters on a fake garden and moves them through Gardener's states. */
export class GardenFixtures {
  private readonly admin: AdminClient;

  /** `backings` is the garden's map from `<namespace>/<name>` to the server a shoot's kubeconfigs reach. */
  constructor(
    server: ApiServer,
    private readonly backings: Map<string, ShootApiServer>,
  ) {
    this.admin = new AdminClient(server.url, server.kubeconfig(), GardenRequestError);
  }

  /** Creates both CRDs (an existing one is kept) and resolves once both resources are served. */
  async installCrds(signal?: AbortSignal): Promise<void> {
    for (const crd of [shootCrd, extensionsClusterCrd]) {
      try {
        await this.admin.send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
      } catch (err) {
        if (!(err instanceof GardenRequestError && err.status === 409)) throw err;
      }
    }
    for (const path of [collection('default'), clustersPath]) {
      for (;;) {
        signal?.throwIfAborted();
        try {
          await this.admin.send('GET', `${path}?limit=1`);
          break;
        } catch (err) {
          if (!(err instanceof GardenRequestError && err.status === 404)) throw err;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    }
  }

  /** Creates Shoot `name` in project `project` (namespace `garden-<project>`, created if missing). */
  async createShoot(project: string, name: string, options: ShootFixtureOptions = {}): Promise<void> {
    const namespace = projectNamespace(project);
    await this.ensureNamespace(namespace);
    if (options.server) this.backings.set(`${namespace}/${name}`, options.server);
    const created = await this.admin.send<Shoot>('POST', collection(namespace), {
      apiVersion: GARDENER_CORE_API_VERSION,
      kind: 'Shoot',
      metadata: { name, namespace, ...(options.labels ? { labels: options.labels } : {}) },
      spec: {
        cloudProfileName: 'local',
        region: 'local',
        kubernetes: { version: '1.32.0' },
        ...(options.hibernated ? { hibernation: { enabled: true } } : {}),
      },
    });
    const op = options.lastOperation === undefined ? { type: 'Reconcile', state: 'Succeeded' } : options.lastOperation;
    if (op === null) return;
    await this.putStatus(namespace, name, created, (status) => ({
      ...status,
      technicalID: technicalId(project, name),
      lastOperation: lastOperation(op as LastOperation),
      ...(options.hibernated ? { isHibernated: true } : {}),
      ...(options.server ? { advertisedAddresses: [{ name: 'external', url: options.server.url }] } : {}),
    }));
  }

  /** Sets the shoot's `status.lastOperation`. */
  setLastOperation(project: string, name: string, op: LastOperation): Promise<void> {
    return this.putStatus(projectNamespace(project), name, undefined, (status) => ({ ...status, lastOperation: lastOperation(op) }));
  }

  /** Hibernates or wakes the shoot: `spec.hibernation.enabled` and `status.isHibernated`, as Gardener ends up. */
  async hibernate(project: string, name: string, hibernated: boolean): Promise<void> {
    const namespace = projectNamespace(project);
    const path = `${collection(namespace)}/${encodeURIComponent(name)}`;
    await this.admin.send('PATCH', path, { spec: { hibernation: { enabled: hibernated } } }, 'application/merge-patch+json');
    await this.putStatus(namespace, name, undefined, (status) => ({ ...status, isHibernated: hibernated }));
  }

  /**
   * Puts another API server behind the shoot (a control plane migrated to another seed, say): kubeconfigs issued from
   * now on reach it, and the Shoot's `status.advertisedAddresses` says so.
   */
  async moveShoot(project: string, name: string, server: ShootApiServer): Promise<void> {
    const namespace = projectNamespace(project);
    this.backings.set(`${namespace}/${name}`, server);
    await this.putStatus(namespace, name, undefined, (status) => ({
      ...status,
      advertisedAddresses: [{ name: 'external', url: server.url }],
    }));
  }

  /** Deletes the shoot; its kubeconfigs stop being issued. */
  async deleteShoot(project: string, name: string): Promise<void> {
    const namespace = projectNamespace(project);
    await this.admin.send('DELETE', `${collection(namespace)}/${encodeURIComponent(name)}`);
    this.backings.delete(`${namespace}/${name}`);
  }

  /**
   * Seed topology: the extensions Cluster `shoot--<project>--<name>` and, in the namespace of that name, the Secret
   * `gardener` with a kubeconfig for `server` and the token-renew-timestamp annotation.
   */
  async createSeedCluster(project: string, name: string, server: ShootApiServer, options: SeedClusterOptions = {}): Promise<string> {
    const id = technicalId(project, name);
    await this.admin.send('POST', clustersPath, {
      apiVersion: GARDENER_EXTENSIONS_API_VERSION,
      kind: 'Cluster',
      metadata: { name: id },
      spec: {
        cloudProfile: {},
        seed: {},
        shoot: { apiVersion: GARDENER_CORE_API_VERSION, kind: 'Shoot', metadata: { name, namespace: projectNamespace(project) } },
      },
    });
    await this.ensureNamespace(id);
    await this.admin.send('POST', `/api/v1/namespaces/${encodeURIComponent(id)}/secrets`, this.seedSecret(id, server, options));
    return id;
  }

  /** Renews the token in the seed's `gardener` Secret, as Gardener's token requestor does before it expires. */
  async renewSeedToken(id: string, server: ShootApiServer, options: SeedClusterOptions = {}): Promise<void> {
    await this.admin.send('PUT', `/api/v1/namespaces/${encodeURIComponent(id)}/secrets/gardener`, this.seedSecret(id, server, options));
  }

  /** Deletes the extensions Cluster (its namespace and Secret stay, as they do until Gardener cleans up). */
  async deleteSeedCluster(id: string): Promise<void> {
    await this.admin.send('DELETE', `${clustersPath}/${encodeURIComponent(id)}`);
  }

  /** Any other request a test needs, as the garden's admin: JSON in and out, GardenRequestError on a non-2xx answer. */
  request<T = Record<string, unknown>>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<T> {
    return this.admin.send<T>(method, path, body, contentType);
  }

  /** Ends the fixtures' connections (the server stays up). */
  close(): void {
    this.admin.close();
  }

  private seedSecret(id: string, server: ShootApiServer, options: SeedClusterOptions): Record<string, unknown> {
    const seconds = options.expirationSeconds ?? 3600;
    const minted = mintKubeconfig(
      server,
      { username: 'system:serviceaccount:kube-system:gardener', groups: ['system:masters'] },
      seconds,
      id,
    );
    // Gardener renews at 80 % of the token's life and records when in this annotation.
    const renewAt = new Date(Date.now() + seconds * 800);
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'gardener',
        namespace: id,
        annotations: { 'serviceaccount.resources.gardener.cloud/token-renew-timestamp': renewAt.toISOString().replace(/\.\d{3}Z$/, 'Z') },
      },
      data: { kubeconfig: Buffer.from(minted.kubeconfig, 'utf8').toString('base64') },
    };
  }

  private async ensureNamespace(name: string): Promise<void> {
    try {
      await this.admin.send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    } catch (err) {
      if (!(err instanceof GardenRequestError && err.status === 409)) throw err;
    }
  }

  /** Rewrites the shoot's status from `current` (or a fresh read); a conflict reads again. */
  private async putStatus(
    namespace: string,
    name: string,
    current: Shoot | undefined,
    change: (status: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<void> {
    const path = `${collection(namespace)}/${encodeURIComponent(name)}`;
    for (let attempt = 0; ; attempt++) {
      const shoot = current ?? (await this.admin.send<Shoot>('GET', path));
      current = undefined;
      try {
        await this.admin.send('PUT', `${path}/status`, { ...shoot, status: change(shoot.status ?? {}) });
        return;
      } catch (err) {
        if (!(err instanceof GardenRequestError && err.status === 409) || attempt >= 5) throw err;
      }
    }
  }
}

function lastOperation(op: LastOperation): Record<string, unknown> {
  return {
    type: op.type,
    state: op.state,
    progress: op.state === 'Succeeded' ? 100 : 50,
    lastUpdateTime: new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
    description: `${op.type} ${op.state.toLowerCase()}`,
  };
}
