/**
 * `startGardenServer`: an in-memory server that answers like a Gardener garden: Shoots in project namespaces, their
 * `adminkubeconfig` and `viewerkubeconfig` subresources issuing short-lived kubeconfigs for the API servers tests
 * put behind the shoots, and (for the seed topology) extensions Clusters with their `gardener` Secrets. Faults: the
 * kubeconfig subresources can fail or hand out tampered kubeconfigs, and the whole garden can stop and restart.
 */
import type { ApiServer } from '../api-server.js';
import { startApiServer } from '../api-server.js';
import type { ApiServerOptions } from '../server/options.js';
import { InvalidOptionsError } from '../errors.js';
import { GardenFixtures } from './garden-fixtures.js';
import { WrappedApiServer } from '../wrapped-api-server.js';
import { kubeconfigActions, type KubeconfigIssuer, type ShootApiServer } from './kubeconfig-request.js';

/** Options of {@link startGardenServer}: the in-memory server's, and the shortest kubeconfig lifetime granted. */
export interface GardenServerOptions extends Omit<ApiServerOptions, 'actions' | 'logicalClusters' | 'mounts'> {
  /** Shortest `expirationSeconds` the kubeconfig subresources accept. Gardener's is 600; tests of renewal go lower. */
  minExpirationSeconds?: number;
}

/** A Kubernetes Status failure the kubeconfig subresources answer with while it is set. */
export interface KubeconfigFailure {
  code: number;
  reason: string;
  message: string;
}

/** A fake garden: an ApiServer with Gardener's Shoots, their kubeconfig subresources and fixtures. */
export interface GardenServer extends ApiServer {
  /** Create Shoots and seed Clusters and move them through Gardener's states. */
  readonly fixtures: GardenFixtures;
  /** Kubeconfigs issued through the subresources since start. */
  kubeconfigsIssued(): number;
  /** Kubeconfig requests answered with the failure set by failKubeconfigRequests since start. */
  kubeconfigRequestsFailed(): number;
  /** Passes every kubeconfig issued from now on through `tamper` (a broken or hostile garden); undefined stops it. */
  tamperKubeconfigs(tamper: ((kubeconfig: string, shoot: { namespace: string; name: string }) => string) | undefined): void;
  /** Makes the kubeconfig subresources answer `failure` (e.g. 503) until called with undefined. */
  failKubeconfigRequests(failure: KubeconfigFailure | undefined): void;
}

/** Starts a fake garden; resolves once its CRDs are served. */
export async function startGardenServer(opts: GardenServerOptions = {}): Promise<GardenServer> {
  const { minExpirationSeconds = 600, ...serverOptions } = opts;
  if (!Number.isInteger(minExpirationSeconds) || minExpirationSeconds < 1) {
    throw new InvalidOptionsError(`minExpirationSeconds must be a positive integer, got ${String(minExpirationSeconds)}`);
  }
  const backings = new Map<string, ShootApiServer>();
  const issuer: KubeconfigIssuer = {
    backing: (namespace, name) => backings.get(`${namespace}/${name}`),
    minExpirationSeconds,
    tamper: undefined,
    failure: undefined,
    issued: 0,
    failed: 0,
  };
  const server = await startApiServer({ ...serverOptions, actions: kubeconfigActions(issuer) });
  const garden = new InMemoryGardenServer(server, issuer, new GardenFixtures(server, backings));
  try {
    await garden.fixtures.installCrds(opts.signal);
  } catch (err) {
    await garden.close();
    throw err;
  }
  return garden;
}

class InMemoryGardenServer extends WrappedApiServer implements GardenServer {
  constructor(
    server: ApiServer,
    private readonly issuer: KubeconfigIssuer,
    readonly fixtures: GardenFixtures,
  ) {
    super(server);
  }

  kubeconfigsIssued(): number {
    return this.issuer.issued;
  }
  kubeconfigRequestsFailed(): number {
    return this.issuer.failed;
  }
  tamperKubeconfigs(tamper: ((kubeconfig: string, shoot: { namespace: string; name: string }) => string) | undefined): void {
    this.issuer.tamper = tamper;
  }
  failKubeconfigRequests(failure: KubeconfigFailure | undefined): void {
    this.issuer.failure = failure;
  }

  override async close(): Promise<void> {
    this.fixtures.close();
    await this.server.close();
  }
}
