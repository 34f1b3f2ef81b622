/**
 * Test support for integration tests: in-memory API servers from @multicluster-runtime/envtest with a started
 * Cluster over each, torn down (cluster stopped, server closed) by `closeAll`.
 */
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { newCluster, type KubeCluster } from '../cluster/cluster.js';
import type { EventHandler } from '../handler/types.js';
import { configMap, configMapKind, kubeconfigOf } from '../testing/fixtures.js';
import { openHandles } from '../testing/leaks.js';

export { configMap, kubeconfigOf };

export interface Member {
  readonly server: ApiServer;
  readonly cluster: KubeCluster;
  readonly stop: AbortController;
  readonly done: Promise<void>;
}

export const configMaps = configMapKind;
export const secrets = { apiVersion: 'v1', kind: 'Secret' };

/** Enqueues the object itself, in the cluster the event came from. */
export const forObject: EventHandler = {
  create: (e, q) => q.add({ clusterName: e.clusterName, namespace: e.object.metadata.namespace ?? '', name: e.object.metadata.name! }),
  update: (e, q) =>
    q.add({ clusterName: e.clusterName, namespace: e.objectNew.metadata.namespace ?? '', name: e.objectNew.metadata.name! }),
  delete: (e, q) => q.add({ clusterName: e.clusterName, namespace: e.object.metadata.namespace ?? '', name: e.object.metadata.name! }),
};

export class Fleet {
  private readonly servers: ApiServer[] = [];
  private readonly members: Member[] = [];

  async server(): Promise<ApiServer> {
    // Without the bootstrap objects: the tests watch ConfigMaps in every namespace and count only their own.
    const s = await startApiServer({ bootstrapPolicy: false });
    this.servers.push(s);
    return s;
  }

  /** A fresh server and a started cluster over it. */
  async member(name: string): Promise<Member> {
    const server = await this.server();
    return this.clusterOn(server, name);
  }

  /** A started cluster over an existing server. */
  clusterOn(server: ApiServer, name: string): Member {
    const cluster = newCluster(kubeconfigOf(server), { name });
    const stop = new AbortController();
    const done = cluster.start(stop.signal);
    const m = { server, cluster, stop, done };
    this.members.push(m);
    return m;
  }

  async closeAll(): Promise<void> {
    for (const m of this.members.splice(0)) {
      m.stop.abort();
      await m.done.catch(() => {});
    }
    for (const s of this.servers.splice(0)) await s.close();
  }
}

/** Live timers of this process (Node's active resources), to prove nothing is left scheduled. */
export function activeTimers(): number {
  return openHandles().timers;
}

/** Open TCP (and TLS) sockets of this process, client and server ends alike (the servers run in-process). */
export function openSockets(): number {
  return openHandles().sockets;
}
