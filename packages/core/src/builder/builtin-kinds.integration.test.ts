/**
 * A controller of built-in workload kinds, tested in memory: for every Deployment it keeps a Service beside it (owned
 * by the Deployment), and reacts to the Service being changed behind its back. The in-memory server serves these
 * kinds from the Kubernetes version's discovery, so this is what a user's test of such a controller looks like.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { afterEach, expect, test } from 'vitest';
import { ignoreNotFound } from '../client/errors.js';
import { newCluster } from '../cluster/cluster.js';
import { createOrUpdate } from '../createorupdate/create-or-update.js';
import { silentLogger } from '../log/logger.js';
import { newManager } from '../manager/manager.js';
import type { KubeObject } from '../object/types.js';
import { setControllerReference } from '../owner/owner-references.js';
import { SingleClusterProvider } from '../providers/single.js';
import { controllerManagedBy } from './builder.js';

const deployments = { apiVersion: 'apps/v1', kind: 'Deployment' } as const;
const services = { apiVersion: 'v1', kind: 'Service' } as const;
type Service = KubeObject & {
  spec?: { selector?: Record<string, string>; ports?: { port: number; protocol?: string; targetPort?: number | string }[] };
};
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function configOf(server: ApiServer): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig());
  return kc;
}

test('a Deployment gets an owned Service; a Service changed behind its back is put right', async () => {
  const [host, member] = await Promise.all([startApiServer({ name: 'host' }), startApiServer({ name: 'member' })]);
  cleanups.push(
    () => host.close(),
    () => member.close(),
  );
  const cluster = newCluster(configOf(member), { name: 'member' });
  const mgr = newManager(configOf(host), new SingleClusterProvider('member', cluster), { logger: silentLogger });
  controllerManagedBy(mgr)
    .for(deployments)
    .owns(services)
    .complete(async (req, ctx) => {
      const member = await mgr.getCluster(req.clusterName, ctx.signal);
      const deployment = await member.client.get(deployments, req, ctx).catch(ignoreNotFound);
      if (!deployment) return;
      const service: Service = { apiVersion: 'v1', kind: 'Service', metadata: { namespace: req.namespace, name: req.name } };
      await createOrUpdate(member.client, service, (s) => {
        setControllerReference(deployment, s);
        s.spec = { ...s.spec, selector: { app: req.name }, ports: [{ port: 80 }] };
      });
    });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  cleanups.push(async () => {
    stop.abort();
    await running;
  });

  const labels = { app: 'web' };
  const created = await cluster.client.create<KubeObject>({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { namespace: 'default', name: 'web' },
    spec: {
      replicas: 2,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
    },
  });
  const service = () => cluster.client.get<Service>(services, { namespace: 'default', name: 'web' }).catch(ignoreNotFound);
  // The server defaults the protocol and the target port, as a real one does.
  await expect.poll(async () => (await service())?.spec?.ports).toEqual([{ port: 80, protocol: 'TCP', targetPort: 80 }]);
  expect((await service())?.metadata.ownerReferences).toEqual([
    expect.objectContaining({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: created.metadata.uid, controller: true }),
  ]);

  await cluster.client.patch(
    services,
    { namespace: 'default', name: 'web' },
    { type: 'merge', body: { spec: { ports: [{ port: 8080 }] } } },
  );
  await expect.poll(async () => (await service())?.spec?.ports).toEqual([{ port: 80, protocol: 'TCP', targetPort: 80 }]);
});
