/**
 * The fleet server: a child process that serves the bench's in-memory API servers (a host plus N members), so that
 * their CPU and memory never count against the implementation being measured. It seeds every member with M
 * ConfigMaps in `default`, writes one kubeconfig per server into a folder (`host.kubeconfig`,
 * `member-<i>.kubeconfig`), prints `{"type":"ready",…}` and then answers `stats` and `stop` on stdin until it closes.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { Transport } from '@multicluster-runtime/core/client';
import { startApiServer, startFleet, type ApiServer } from '@multicluster-runtime/envtest';
import { mapConcurrent } from '../concurrency.js';
import { processCpuMs, readCommands } from '../protocol.js';
import { BENCH_NAMESPACE, objectName } from './fleet-names.js';

async function seed(server: ApiServer, objects: number): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig());
  const transport = Transport.forConfig(kc, { maxConnections: 4 });
  try {
    await mapConcurrent(
      Array.from({ length: objects }, (_, i) => i),
      4,
      (i) =>
        transport.request({
          method: 'POST',
          path: `/api/v1/namespaces/${BENCH_NAMESPACE}/configmaps`,
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: objectName(i), namespace: BENCH_NAMESPACE }, data: { n: '0' } },
        }),
    );
  } finally {
    await transport.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { members: { type: 'string' }, objects: { type: 'string', default: '0' }, dir: { type: 'string' } },
  });
  const members = Number(values.members);
  const objects = Number(values.objects);
  if (!Number.isInteger(members) || members < 0 || !Number.isInteger(objects) || objects < 0 || !values.dir) {
    throw new Error('usage: fleet-server --members N --objects M --dir FOLDER');
  }
  const dir = values.dir;
  const host = await startApiServer({ name: 'host' });
  // Thousands of members: without the ~150 RBAC and APF objects each, which no runner reads.
  const fleet = await startFleet(members, { namePrefix: 'member', bootstrapPolicy: false });
  const servers = [host, ...fleet.servers];
  try {
    await host.writeKubeconfig(join(dir, 'host.kubeconfig'));
    await mapConcurrent(fleet.servers, 8, async (server, i) => {
      await seed(server, objects);
      await server.writeKubeconfig(join(dir, `member-${i}.kubeconfig`));
    });
    process.stdout.write(`${JSON.stringify({ type: 'ready', members, objects, pid: process.pid })}\n`);
    for await (const cmd of readCommands<{ id?: number; cmd?: string }>()) {
      if (cmd.cmd === 'stop') break;
      if (cmd.cmd === 'stats') {
        const total = { connections: 0, requests: 0, openWatches: 0 };
        for (const s of servers) {
          const st = s.stats();
          total.connections += st.connections;
          total.requests += st.requests;
          total.openWatches += st.openWatches;
        }
        process.stdout.write(`${JSON.stringify({ id: cmd.id, type: 'stats', ...total, cpuMs: processCpuMs() })}\n`);
      }
    }
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`fleet-server: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
