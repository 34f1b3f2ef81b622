/**
 * Test support for the hostile-member tests: an HTTP handler that answers discovery as an API server does (core
 * group: namespaces and configmaps), a fleet of a healthy member beside others under one manager and ConfigMap
 * controller, and the probe that measures how fast the healthy member's new ConfigMap is reconciled meanwhile.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { KubeConfig } from '@kubernetes/client-node';
import type { ApiServer } from '@multicluster-runtime/envtest';
import { expect } from 'vitest';
import { controllerManagedBy } from '../../builder/builder.js';
import { newCluster, type KubeCluster } from '../../cluster/cluster.js';
import { silentLogger } from '../../log/logger.js';
import { newManager } from '../../manager/manager.js';
import type { ManagerOptions } from '../../manager/options.js';
import type { Manager } from '../../manager/types.js';
import type { ClusterConnectionOptions } from './connection-options.js';
import { ListProvider } from './list-provider.test-util.js';

export function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Answers `/api`, `/apis` and `/api/v1` as an API server serving Namespaces and ConfigMaps; false for other paths. */
export function answerDiscovery(req: IncomingMessage, res: ServerResponse): boolean {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  if (path === '/api') return (json(res, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] }), true);
  if (path === '/apis') return (json(res, { kind: 'APIGroupList', apiVersion: 'v1', groups: [] }), true);
  if (path !== '/api/v1') return false;
  const resource = (name: string, kind: string, namespaced: boolean) => ({
    name,
    singularName: '',
    namespaced,
    kind,
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  });
  json(res, {
    kind: 'APIResourceList',
    groupVersion: 'v1',
    resources: [resource('namespaces', 'Namespace', false), resource('configmaps', 'ConfigMap', true)],
  });
  return true;
}

export function configOf(kubeconfig: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  return kc;
}

/** A kubeconfig for `server` with a bearer token (and the CA, for https). */
export function tokenConfig(server: string, token: string, caPem?: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'h', server, skipTLSVerify: false, ...(caPem ? { caData: Buffer.from(caPem).toString('base64') } : {}) }],
    users: [{ name: 'u', token }],
    contexts: [{ name: 'h', cluster: 'h', user: 'u' }],
    currentContext: 'h',
  });
  return kc;
}

/** Registers a ConfigMap controller that notes when each ConfigMap of member `healthy` was first reconciled. */
export function noteHealthyReconciles(mgr: Manager): Map<string, number> {
  const seen = new Map<string, number>();
  controllerManagedBy(mgr)
    .named('configmaps')
    .for({ apiVersion: 'v1', kind: 'ConfigMap' })
    .complete((req) => {
      if (req.clusterName === 'healthy' && !seen.has(req.name)) seen.set(req.name, performance.now());
      return Promise.resolve();
    });
  return seen;
}

/** Creates `count` ConfigMaps in the healthy member one after another; the create → reconcile latency of each, ms. */
export async function healthyLatencies(writer: KubeCluster, seen: Map<string, number>, prefix: string, count = 5): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const name = `probe-${prefix}-${i}`;
    const t0 = performance.now();
    await writer.apiReader.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name } });
    await expect.poll(() => seen.has(name), { timeout: 10_000, interval: 5 }).toBe(true);
    latencies.push(seen.get(name)! - t0);
  }
  return latencies;
}

/** A running fleet of the healthy member and others: the provider, the manager, and the healthy member's latencies. */
export interface BesideHealthy {
  readonly provider: ListProvider;
  readonly mgr: ReturnType<typeof newManager>;
  /** Creates `count` ConfigMaps in the healthy member; the create → reconcile latency of each, ms. */
  readonly latencies: (prefix: string, count?: number) => Promise<number[]>;
}

/**
 * Runs `body` with the healthy member and `others` engaged by one manager (its ConfigMap controller noting the healthy
 * member's reconciles), once the healthy member is engaged; stops everything after, also when `body` throws.
 */
export async function withHealthyMember(
  healthy: ApiServer,
  others: ReadonlyArray<[string, KubeConfig]>,
  connection: ClusterConnectionOptions,
  body: (fleet: BesideHealthy) => Promise<void>,
  managerOptions: Partial<ManagerOptions> = {},
): Promise<void> {
  const provider = new ListProvider([['healthy', configOf(healthy.kubeconfig())], ...others], {
    waitCacheTimeoutMs: 60_000,
    ...connection,
  });
  const mgr = newManager(configOf(healthy.kubeconfig()), provider, { logger: silentLogger, ...managerOptions });
  const seen = noteHealthyReconciles(mgr);
  const stop = new AbortController();
  const done = mgr.start(stop.signal);
  const writer = newCluster(configOf(healthy.kubeconfig()));
  try {
    await expect.poll(() => mgr.engagedClusters().includes('healthy'), { timeout: 20_000 }).toBe(true);
    await body({ provider, mgr, latencies: (prefix, count) => healthyLatencies(writer, seen, prefix, count) });
  } finally {
    stop.abort();
    await done;
    await writer.close();
  }
}
