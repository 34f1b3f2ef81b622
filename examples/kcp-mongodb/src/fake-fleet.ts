/**
 * The walk-through's world on one machine, from envtest: a fake kcp with two shards, where `root:mongodb` publishes
 * the MongoDB API (claiming Events, so the controller can record them in consumer workspaces) and two consumer
 * workspaces on different shards bind it; and an in-memory downstream cluster serving the operator's CRD. `npm start`
 * runs on it; so does the walk-through test.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { isNotFound } from '@multicluster-runtime/core';
import { ApiClient, DiscoveryRESTMapper, Transport, isNoMatchError } from '@multicluster-runtime/core/client';
import type { ApiServer } from '@multicluster-runtime/envtest';
import { startApiServer } from '@multicluster-runtime/envtest';
import type { GroupResource, KcpServer, KcpWorkspace } from '@multicluster-runtime/envtest/kcp';
import { startKcpServer } from '@multicluster-runtime/envtest/kcp';
import { setTimeout } from 'node:timers/promises';
import { EXPORT_NAME, MONGODB, mongoDownstreamCrd, mongoResourceSchema } from './api.js';

/** What the export claims and consumers accept: the controller records Events in their workspaces. */
export const EVENT_CLAIM: GroupResource = { group: 'events.k8s.io', resource: 'events' };

export interface FakeFleet {
  readonly kcp: KcpServer;
  readonly downstream: ApiServer;
  /** `root:mongodb`, where the APIExport lives (the controller's `--kcp-kubeconfig` points here). */
  readonly exportWorkspace: KcpWorkspace;
  /** `root:team-a` (shard one) and `root:team-b` (shard two), both bound to the export. */
  readonly consumers: readonly [KcpWorkspace, KcpWorkspace];
  /** The kubeconfig (YAML) of a workspace, or of the downstream cluster when none is given. */
  kubeconfig(workspace?: KcpWorkspace): string;
  close(): Promise<void>;
}

export async function startFakeFleet(): Promise<FakeFleet> {
  const kcp = await startKcpServer({ shards: ['one', 'two'] });
  const downstream = await startApiServer().catch(async (err: unknown) => {
    await kcp.close();
    throw err;
  });
  const close = async (): Promise<void> => {
    await Promise.all([kcp.close(), downstream.close()]);
  };
  try {
    await installDownstreamCrd(downstream);
    const exportWorkspace = await kcp.createWorkspace('root:mongodb');
    const { apiVersion: _a, kind: _k, ...schema } = mongoResourceSchema;
    await kcp.createExport(exportWorkspace, { name: EXPORT_NAME, schemas: [schema], permissionClaims: [EVENT_CLAIM] });
    const teamA = await kcp.createWorkspace('root:team-a', { shard: 'one' });
    const teamB = await kcp.createWorkspace('root:team-b', { shard: 'two' });
    for (const ws of [teamA, teamB]) {
      await kcp.bind(ws, { exportPath: 'root:mongodb', exportName: EXPORT_NAME, acceptClaims: [EVENT_CLAIM] });
    }
    return {
      kcp,
      downstream,
      exportWorkspace,
      consumers: [teamA, teamB],
      kubeconfig: (ws) => (ws ? kcp.kubeconfig(ws) : downstream.kubeconfig()),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Creates the downstream CRD and waits until the server serves it (as the operator's install would). */
async function installDownstreamCrd(server: ApiServer): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig());
  const transport = Transport.forConfig(kc);
  try {
    const client = new ApiClient(transport, new DiscoveryRESTMapper(transport));
    await client.create(mongoDownstreamCrd);
    const deadline = Date.now() + 10_000;
    for (;;) {
      const served = await client.list(MONGODB).then(
        () => true,
        (err: unknown) => (isNoMatchError(err) || isNotFound(err) ? false : Promise.reject(err)),
      );
      if (served) return;
      if (Date.now() > deadline) throw new Error(`the downstream server did not serve ${mongoDownstreamCrd.metadata.name} within 10 s`);
      await setTimeout(20);
    }
  } finally {
    await transport.close();
  }
}
