/**
 * The Milo provider: every ready Milo project becomes a fleet member named after the project. In `project` mode
 * (default) it watches `Project`s on Milo's API and reaches each control plane under that API; in
 * `projectControlPlane` mode it watches `ProjectControlPlane`s on the infrastructure cluster and reaches each control
 * plane through its internal service address. A project is disengaged when its object is deleted or stops being
 * ready, and engaged again when it is ready again.
 *
 * Built on core's ClusterEngager, so projects connect concurrently and one that is slow or unreachable never holds
 * up the rest (it is retried with backoff and reported in `status(name)`). Each project costs one lazily started
 * Cluster: its cache starts no informer until a controller asks for one, so memory grows with what controllers
 * watch, not with the number of projects.
 */
import { ClusterEngager, EngagerProvider, parseLabelSelector } from '@multicluster-runtime/core';
import { connectionFingerprint } from '@multicluster-runtime/core/kubeconfig';
import { everythingSelector } from '@multicluster-runtime/core/labels';
import {
  ProviderConfigError,
  absentCluster,
  checkProviderOptions,
  hostClusterRule,
  notReadyCluster,
  refusedCluster,
} from '@multicluster-runtime/core/providers';
import { anyValue } from '@multicluster-runtime/core/options';
import { whenAborted } from '@multicluster-runtime/core/signal';
import type { Cluster, KubeObject, LabelSelector, ProviderContext } from '@multicluster-runtime/core';
import type { ClusterConnectionOptions, DesiredCluster } from '@multicluster-runtime/core/providers';
import {
  checkedUrl,
  defaultInternalAddress,
  internalAddressProblem,
  internalControlPlaneUrl,
  projectControlPlaneUrl,
  projectKubeConfig,
} from './endpoint.js';
import { conditionIsTrue, isProjectName, readyConditionOf, watchedKindOf, type MiloMode } from './resources.js';

type KubeConfig = Cluster['config'];

export interface MiloProviderOptions extends ClusterConnectionOptions {
  /** Which objects announce projects. Default `project`. */
  mode?: MiloMode;
  /**
   * Base URL, credentials and TLS settings for project control planes. In `project` mode its server is Milo's API
   * (any path on it is kept). Default: the config of the cluster the objects are watched on.
   */
  baseConfig?: KubeConfig;
  /**
   * `projectControlPlane` mode only: the control plane's URL, as a template where `{name}` is replaced by the project
   * name, or a function from the name to the URL. Default `https://milo-apiserver.project-{name}.svc.cluster.local:6443`.
   */
  internalAddress?: string | ((project: string) => string);
  /** Where Projects (or ProjectControlPlanes) are watched. Default: the manager's local cluster. */
  hostCluster?: Cluster;
  /**
   * Only projects whose object matches (`"env=prod,tier in (a,b)"` or `{ env: 'prod' }`). Unlike upstream, where the
   * selector only filters watch events, a project that stops matching is disengaged.
   */
  labelSelector?: string | Readonly<Record<string, string>>;
}

/**
 * Milo projects as a fleet: each Ready project (or project control plane), reached at its control-plane address.
 */
export class MiloProvider extends EngagerProvider {
  readonly mode: MiloMode;
  private readonly selector: LabelSelector;
  private readonly internalAddress: (project: string) => string;

  constructor(private readonly options: MiloProviderOptions = {}) {
    super('MiloProvider', new ClusterEngager('milo', options));
    checkProviderOptions(this.providerName, options, {
      mode: anyValue,
      baseConfig: anyValue,
      internalAddress: anyValue,
      hostCluster: hostClusterRule,
      labelSelector: anyValue,
    });
    const mode = options.mode ?? 'project';
    if (mode !== 'project' && mode !== 'projectControlPlane') {
      throw new ProviderConfigError('MiloProvider', `options.mode must be "project" or "projectControlPlane", got ${JSON.stringify(mode)}`);
    }
    this.mode = mode;
    if (options.internalAddress !== undefined && mode !== 'projectControlPlane') {
      throw new ProviderConfigError('MiloProvider', 'options.internalAddress applies to mode "projectControlPlane" only');
    }
    const address = options.internalAddress ?? defaultInternalAddress;
    if (typeof address === 'string') {
      const problem = internalAddressProblem(address);
      if (problem) throw new ProviderConfigError('MiloProvider', `options.internalAddress is unusable: ${problem}`);
      this.internalAddress = (project) => internalControlPlaneUrl(address, project);
    } else if (typeof address === 'function') {
      this.internalAddress = (project) => checkedUrl(address(project));
    } else {
      throw new ProviderConfigError('MiloProvider', 'options.internalAddress must be a URL template or a function');
    }
    if (options.baseConfig && !options.baseConfig.getCurrentCluster()) {
      throw new ProviderConfigError('MiloProvider', 'options.baseConfig has no current cluster');
    }
    try {
      this.selector = options.labelSelector === undefined ? everythingSelector : parseLabelSelector(options.labelSelector);
    } catch (err) {
      throw new ProviderConfigError('MiloProvider', `options.labelSelector is invalid: ${(err as Error).message}`);
    }
  }

  protected async discover(signal: AbortSignal, context: ProviderContext): Promise<void> {
    const host = this.options.hostCluster ?? context.localCluster;
    if (!host) {
      throw new ProviderConfigError('MiloProvider', 'no cluster to watch projects on: start it from a manager or pass options.hostCluster');
    }
    const base = this.options.baseConfig ?? host.config;
    if (!base.getCurrentCluster()) throw new ProviderConfigError('MiloProvider', 'the base kubeconfig has no current cluster');
    if (signal.aborted) return;
    this.engager.begin(context.aware, signal);
    const kind = watchedKindOf[this.mode];
    const lease = await host.cache.acquireInformer(kind, { signal });
    const recompute = (name: string | undefined): void => {
      if (name) this.engager.wish(name, this.desired(lease.informer.get('', name), name, base));
    };
    const registration = lease.informer.addEventHandler({
      onAdd: (o) => recompute(o.metadata.name),
      onUpdate: (_old, o) => recompute(o.metadata.name),
      onDelete: (o) => recompute(o.metadata.name),
    });
    this.log.info('watching Milo projects', { mode: this.mode, kind: kind.kind, selector: this.selector.toString() || '(all)' });
    try {
      await whenAborted(signal);
    } finally {
      registration.remove();
      lease.release();
    }
  }

  /**
   * What project `name` should be, from its object alone. A project being deleted stays engaged while it is ready:
   * Milo keeps `Ready` during its cleanup, which controllers working in the project may still be part of.
   */
  private desired(obj: KubeObject | undefined, name: string, base: KubeConfig): DesiredCluster {
    if (!obj || !this.selector.matches(obj.metadata.labels)) return absentCluster;
    const ready = readyConditionOf[this.mode];
    if (!conditionIsTrue(obj, ready)) return notReadyCluster(`the project's ${ready} condition is not True`);
    if (!isProjectName(name)) return refusedCluster('invalid', 'the project name is not a DNS-1123 subdomain');
    try {
      const server = this.mode === 'project' ? projectControlPlaneUrl(base.getCurrentCluster()!.server, name) : this.internalAddress(name);
      const config = projectKubeConfig(base, name, server);
      return { kind: 'config', config, fingerprint: connectionFingerprint(config) };
    } catch (err) {
      return refusedCluster('invalid', `no control-plane address for the project: ${(err as Error).message}`);
    }
  }
}
