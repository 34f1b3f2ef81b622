/**
 * Test support for the toolkit's HTTP tests, which run the same cases against the in-memory API server and (the real
 * tier) a kube-apiserver + etcd: a started Cluster over either, the Widget CRD the cases use, and fresh namespaces.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer, type ApiServerOptions } from '@multicluster-runtime/envtest';
import { assetsDirFromEnv, startTestEnvironment } from '@multicluster-runtime/envtest/real';
import { isNoMatchError } from '../client/errors.js';
import type { Client } from '../client/types.js';
import type { KubeObject } from '../object/types.js';
import { newCluster, type ClusterOptions, type KubeCluster } from './cluster.js';

export const widgets = { apiVersion: 'toolkit.example.com/v1', kind: 'Widget' } as const;

export interface Widget extends KubeObject {
  spec?: { size?: number; color?: string };
  status?: { phase?: string; observedGeneration?: number; conditions?: WidgetCondition[] };
}

/** What kubebuilder generates for a `[]metav1.Condition`, so the real server validates conditions as it does in clusters. */
export interface WidgetCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

const conditionSchema = {
  type: 'object',
  required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
  properties: {
    type: {
      type: 'string',
      maxLength: 316,
      pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
    },
    status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
    observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
    lastTransitionTime: { type: 'string', format: 'date-time' },
    reason: { type: 'string', maxLength: 1024, minLength: 1, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' },
    message: { type: 'string', maxLength: 32768 },
  },
};

export const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.toolkit.example.com' },
  spec: {
    group: 'toolkit.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } },
              status: {
                type: 'object',
                properties: {
                  phase: { type: 'string' },
                  observedGeneration: { type: 'integer' },
                  conditions: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['type'],
                    items: conditionSchema,
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};

export interface Tier {
  readonly name: 'memory' | 'real';
  readonly kubeconfig: string;
  /** A started cluster over the server. */
  readonly cluster: KubeCluster;
  /** Reads and writes straight to the server (the cluster's API client), for assertions that must not be stale. */
  readonly direct: Client;
  /** The in-memory server (memory tier only). */
  readonly server?: ApiServer;
  /** A new namespace, unique in this process. */
  readonly namespace: () => Promise<string>;
  /** A new started cluster over the same server. */
  readonly newCluster: (options?: ClusterOptions) => KubeCluster;
  readonly close: () => Promise<void>;
}

let namespaces = 0;

function tier(name: Tier['name'], kubeconfig: string, closeServer: () => Promise<void>, server?: ApiServer): Tier {
  const stops: { stop: AbortController; done: Promise<void> }[] = [];
  const make = (options?: ClusterOptions): KubeCluster => {
    const kc = new KubeConfig();
    kc.loadFromString(kubeconfig);
    const c = newCluster(kc, { name, ...options });
    const stop = new AbortController();
    stops.push({ stop, done: c.start(stop.signal) });
    return c;
  };
  const cluster = make();
  return {
    name,
    kubeconfig,
    cluster,
    direct: cluster.apiReader,
    ...(server ? { server } : {}),
    newCluster: make,
    namespace: async () => {
      const ns = `tk-${process.pid}-${++namespaces}`;
      await cluster.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      return ns;
    },
    close: async () => {
      for (const s of stops.splice(0)) {
        s.stop.abort();
        await s.done.catch(() => {});
      }
      await closeServer();
    },
  };
}

/** The in-memory server with the Widget CRD served. */
export async function startMemoryTier(options: ApiServerOptions = {}): Promise<Tier> {
  const server = await startApiServer(options);
  const t = tier('memory', server.kubeconfig(), () => server.close(), server);
  await t.cluster.client.create(widgetCrd);
  await waitForKind(t.cluster);
  return t;
}

/** A real kube-apiserver + etcd with the Widget CRD, or undefined without KUBEBUILDER_ASSETS. */
export async function startRealTier(): Promise<Tier | undefined> {
  if (!assetsDirFromEnv()) return undefined;
  const env = await startTestEnvironment({ crds: [widgetCrd] });
  const t = tier('real', env.kubeconfig(), () => env.stop());
  await waitForKind(t.cluster);
  return t;
}

async function waitForKind(cluster: KubeCluster): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await cluster.apiReader.list(widgets, { limit: 1 });
      return;
    } catch (err) {
      if (!isNoMatchError(err) || i > 500) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
