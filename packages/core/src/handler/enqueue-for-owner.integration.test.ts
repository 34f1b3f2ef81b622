/**
 * enqueueRequestForOwner against the in-memory API server: the owner's scope comes from real discovery over HTTPS,
 * and the requests land in a real request queue.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newCluster, type KubeCluster } from '../cluster/cluster.js';
import { createLogger } from '../log/logger.js';
import type { KubeObject, OwnerReference } from '../object/types.js';
import type { Request } from '../reconcile/types.js';
import { newRequestQueue } from '../workqueue/request-queue.js';
import { enqueueRequestForOwner } from './enqueue-for-owner.js';

let server: ApiServer;
let cluster: KubeCluster;

beforeAll(async () => {
  server = await startApiServer();
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig());
  cluster = newCluster(kc, { name: 'member' });
});

afterAll(async () => {
  await cluster?.close();
  await server?.close();
});

const configMapOwnedBy = (ref: OwnerReference): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cm', namespace: 'apps', ownerReferences: [ref] },
});

async function drain(queue: ReturnType<typeof newRequestQueue>): Promise<Request[]> {
  const out: Request[] = [];
  while (queue.len() > 0) {
    const req = (await queue.get())!;
    out.push(req);
    queue.done(req);
  }
  return out;
}

function crd(kind: string, plural: string, scope: 'Namespaced' | 'Cluster'): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      scope,
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
}

async function install(kind: string, plural: string, scope: 'Namespaced' | 'Cluster'): Promise<void> {
  await cluster.client.create(crd(kind, plural, scope));
  // Established is asynchronous: wait until discovery serves the kind.
  await expect
    .poll(
      async () => {
        cluster.restMapper.reset();
        return cluster.restMapper.mapping({ apiVersion: 'example.com/v1', kind }).then(
          () => true,
          () => false,
        );
      },
      { timeout: 10_000 },
    )
    .toBe(true);
  cluster.restMapper.reset();
}

describe('enqueueRequestForOwner with discovery from a real API server', () => {
  it('enqueues a namespaced owner in the object’s namespace and a cluster-scoped owner without one', async () => {
    await install('App', 'apps', 'Namespaced');
    const queue = newRequestQueue({ name: 'owners' });
    const byApp = enqueueRequestForOwner({ apiVersion: 'example.com/v1', kind: 'App' });
    const byNamespace = enqueueRequestForOwner({ apiVersion: 'v1', kind: 'Namespace' });

    byApp.create!(
      {
        clusterName: 'member',
        cluster,
        isInInitialList: false,
        object: configMapOwnedBy({ apiVersion: 'example.com/v1', kind: 'App', name: 'web', uid: 'u1', controller: true }),
      },
      queue,
    );
    byNamespace.create!(
      {
        clusterName: 'member',
        cluster,
        isInInitialList: false,
        object: configMapOwnedBy({ apiVersion: 'v1', kind: 'Namespace', name: 'apps', uid: 'u2', controller: true }),
      },
      queue,
    );

    await expect.poll(() => queue.len(), { timeout: 10_000 }).toBe(2);
    expect(await drain(queue)).toEqual(
      expect.arrayContaining([
        { clusterName: 'member', namespace: 'apps', name: 'web' },
        { clusterName: 'member', namespace: '', name: 'apps' },
      ]),
    );
    queue.shutDown();
  });

  it('learns the scope of an owner kind whose CRD appears after the first event', async () => {
    const records: string[] = [];
    const logger = createLogger({ sink: (_l, msg) => records.push(msg) });
    const queue = newRequestQueue({ name: 'late-crd' });
    const byTenant = enqueueRequestForOwner({ apiVersion: 'example.com/v1', kind: 'Tenant' }, { logger });
    const event = {
      clusterName: 'member',
      cluster,
      isInInitialList: false,
      object: configMapOwnedBy({ apiVersion: 'example.com/v1', kind: 'Tenant', name: 'acme', uid: 'u3', controller: true }),
    };

    byTenant.create!(event, queue);
    await expect.poll(() => queue.len(), { timeout: 10_000 }).toBe(1);
    // Unknown kind: logged, and the request still made with the namespaced guess rather than lost.
    expect(records).toEqual([expect.stringContaining('could not look up whether the owner kind is namespaced')]);
    expect(await drain(queue)).toEqual([{ clusterName: 'member', namespace: 'apps', name: 'acme' }]);

    await install('Tenant', 'tenants', 'Cluster');
    byTenant.create!(event, queue);
    await expect.poll(() => queue.len(), { timeout: 10_000 }).toBe(1);
    expect(await drain(queue)).toEqual([{ clusterName: 'member', namespace: '', name: 'acme' }]);
    queue.shutDown();
  });
});
