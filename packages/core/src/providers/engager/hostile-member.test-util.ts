/**
 * Test support for the hostile-member tests: an HTTP handler that answers discovery as an API server does (core
 * group: namespaces and configmaps), and the probe that measures how fast a healthy member's new ConfigMap is
 * reconciled while a hostile member misbehaves beside it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { KubeConfig } from '@kubernetes/client-node';
import { expect } from 'vitest';
import { controllerManagedBy } from '../../builder/builder.js';
import type { KubeCluster } from '../../cluster/cluster.js';
import type { Manager } from '../../manager/types.js';

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
