/**
 * The demo's two controllers, one of each multicluster-runtime pattern:
 * - "stamp" (uniform): in every member, annotates each demo ConfigMap with a checksum of its data.
 * - "mirror" (multi-cluster-aware): reads demo ConfigMaps in the members and writes a copy of each into the host
 *   cluster's `fleet` namespace, deleting the copy when the original goes.
 */
import { createHash } from 'node:crypto';
import {
  controllerManagedBy,
  isNotFound,
  labelSelectorPredicate,
  LOCAL_CLUSTER,
  type Manager,
  type KubeObject,
} from '@multicluster-runtime/core';
import type { DemoStats } from './stats.js';

const configMap = { apiVersion: 'v1', kind: 'ConfigMap' };
const checksumAnnotation = 'demo.multicluster-runtime.io/checksum';
export const mirrorNamespace = 'fleet';

/** A DNS-safe name for a member's object in the host. */
export function mirrorName(cluster: string, namespace: string, name: string): string {
  const base = cluster.split(/[/+]/).filter(Boolean).pop() ?? cluster;
  const clean = `${base}.${namespace}.${name}`
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
  const digest = createHash('sha256').update(`${cluster}/${namespace}/${name}`).digest('hex').slice(0, 8);
  return `${clean.slice(0, 200)}-${digest}`;
}

function checksum(data: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(data ?? {}))
    .digest('hex')
    .slice(0, 16);
}

export async function setupControllers(mgr: Manager, stats: DemoStats): Promise<void> {
  const demoOnly = labelSelectorPredicate({ 'app.kubernetes.io/part-of': 'demo' });

  controllerManagedBy(mgr)
    .named('stamp')
    .for(configMap, { predicates: [demoOnly] })
    .withOptions({ maxConcurrentReconciles: 4 })
    .complete(
      stats.count('stamp', async (req) => {
        const cluster = await mgr.getCluster(req.clusterName);
        let cm: KubeObject;
        try {
          cm = await cluster.client.get(configMap, req);
        } catch (err) {
          if (isNotFound(err)) return;
          throw err;
        }
        const sum = checksum(cm['data']);
        if (cm.metadata.annotations?.[checksumAnnotation] === sum) return;
        await cluster.client.patch(configMap, req, {
          type: 'merge',
          body: { metadata: { annotations: { [checksumAnnotation]: sum }, resourceVersion: cm.metadata.resourceVersion } },
        });
      }),
    );

  const host = mgr.getLocalCluster();
  await host.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: mirrorNamespace } }).catch((err: unknown) => {
    if (!(err instanceof Error && /already exists/i.test(err.message))) throw err;
  });

  controllerManagedBy(mgr)
    .named('mirror')
    .for(configMap, { predicates: [demoOnly] })
    .withOptions({ maxConcurrentReconciles: 4 })
    .complete(
      stats.count('mirror', async (req) => {
        const target = { namespace: mirrorNamespace, name: mirrorName(req.clusterName, req.namespace, req.name) };
        const member = await mgr.getCluster(req.clusterName);
        let source: KubeObject;
        try {
          source = await member.client.get(configMap, req);
        } catch (err) {
          if (!isNotFound(err)) throw err;
          await host.client.delete(configMap, target).catch((e: unknown) => {
            if (!isNotFound(e)) throw e;
          });
          return;
        }
        await (
          await mgr.getCluster(LOCAL_CLUSTER)
        ).client.apply(
          {
            ...configMap,
            metadata: {
              ...target,
              labels: { 'demo.multicluster-runtime.io/mirror': 'true' },
              annotations: { 'demo.multicluster-runtime.io/source': `${req.clusterName}/${req.namespace}/${req.name}` },
            },
            data: (source['data'] as Record<string, string> | undefined) ?? {},
          },
          { fieldManager: 'demo-mirror', force: true },
        );
      }),
    );
}
