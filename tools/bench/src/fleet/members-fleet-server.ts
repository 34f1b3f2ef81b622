/**
 * The members fleet server: a child process serving the members of the scale scenarios, so that the server's CPU and
 * memory never count against the process being measured. `--kind milo`: a fake Milo (envtest's startMiloServer) with
 * N ready Projects, each project's control plane seeded with M ConfigMaps in `default`. `--kind namespaces`: one
 * in-memory API server with N namespaces labelled `bench=on`, M ConfigMaps in each, and N/10 more namespaces with
 * their ConfigMaps but without the label (the late joiners: `join` labels them all, so they become members after the
 * runner's informers hold their objects). Writes the admin kubeconfig to `<dir>/host.kubeconfig`, prints
 * `{"type":"ready",…}`, then answers `{id, cmd: "join"}` until stdin closes or says stop.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { newCluster } from '@multicluster-runtime/core';
import { loadUntrustedKubeconfig } from '@multicluster-runtime/core/kubeconfig';
import { startApiServer } from '@multicluster-runtime/envtest';
import { startMiloServer } from '@multicluster-runtime/envtest/milo';
import { mapConcurrent } from '../concurrency.js';
import { readCommands } from '../protocol.js';
import { BENCH_NAMESPACE, joinersOf, objectName } from './fleet-names.js';

/** Which members a scale scenario engages. */
export type MembersKind = 'milo' | 'namespaces';

/** The name of the i-th member: sorted names sort like their numbers. */
function memberName(kind: MembersKind, i: number): string {
  return `${kind === 'milo' ? 'project' : 'member'}-${String(i).padStart(4, '0')}`;
}

interface Served {
  writeKubeconfig(path: string): Promise<void>;
  /** Labels the late joiners `bench=on`; resolves with how many once every label is written. */
  join?(): Promise<number>;
  close(): Promise<void>;
}

async function serveMilo(members: number, objects: number): Promise<Served> {
  const milo = await startMiloServer({ name: 'milo' });
  await mapConcurrent(
    Array.from({ length: members }, (_, i) => memberName('milo', i)),
    16,
    async (name) => {
      await milo.fixtures.createProject(name, { ready: true });
      const path = `${new URL(milo.controlPlaneUrl(name)).pathname}/api/v1/namespaces/${BENCH_NAMESPACE}/configmaps`;
      for (let i = 0; i < objects; i++) {
        await milo.fixtures.request('POST', path, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: objectName(i), namespace: BENCH_NAMESPACE },
          data: { project: name },
        });
      }
    },
  );
  return { writeKubeconfig: (path) => milo.writeKubeconfig(path), close: () => milo.close() };
}

async function serveNamespaces(members: number, objects: number): Promise<Served> {
  const server = await startApiServer({ name: 'host' });
  const admin = newCluster(loadUntrustedKubeconfig(server.kubeconfig()), { name: 'fleet-admin' });
  const joiners = Array.from({ length: joinersOf(members) }, (_, i) => `joiner-${String(i).padStart(4, '0')}`);
  const seed = async (name: string, labels: Record<string, string>): Promise<void> => {
    await admin.apiReader.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
    for (let i = 0; i < objects; i++) {
      await admin.apiReader.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: objectName(i), namespace: name },
        data: { member: name },
      });
    }
  };
  try {
    await mapConcurrent(
      Array.from({ length: members }, (_, i) => memberName('namespaces', i)),
      16,
      (name) => seed(name, { bench: 'on' }),
    );
    await mapConcurrent(joiners, 16, (name) => seed(name, { bench: 'later' }));
  } catch (err) {
    await admin.close();
    throw err;
  }
  return {
    writeKubeconfig: (path) => server.writeKubeconfig(path),
    join: async () => {
      await mapConcurrent(joiners, 16, (name) =>
        admin.apiReader.patch(
          { apiVersion: 'v1', kind: 'Namespace' },
          { name },
          { type: 'merge', body: { metadata: { labels: { bench: 'on' } } } },
        ),
      );
      return joiners.length;
    },
    close: async () => {
      await admin.close();
      await server.close();
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { kind: { type: 'string' }, members: { type: 'string' }, objects: { type: 'string', default: '0' }, dir: { type: 'string' } },
  });
  const members = Number(values.members);
  const objects = Number(values.objects);
  const kind = values.kind;
  if (
    (kind !== 'milo' && kind !== 'namespaces') ||
    !Number.isInteger(members) ||
    members < 0 ||
    !Number.isInteger(objects) ||
    objects < 0 ||
    !values.dir
  ) {
    throw new Error('usage: members-fleet-server --kind milo|namespaces --members N --objects M --dir FOLDER');
  }
  const served = kind === 'milo' ? await serveMilo(members, objects) : await serveNamespaces(members, objects);
  try {
    await served.writeKubeconfig(join(values.dir, 'host.kubeconfig'));
    process.stdout.write(`${JSON.stringify({ type: 'ready', kind, members, objects, pid: process.pid })}\n`);
    // Serves until the bench closes stdin (or says stop).
    for await (const cmd of readCommands<{ id?: number; cmd?: string }>()) {
      if (cmd.cmd === 'stop') break;
      if (cmd.cmd === 'join') {
        try {
          if (!served.join) throw new Error(`a ${kind} fleet has no late joiners`);
          process.stdout.write(`${JSON.stringify({ id: cmd.id, type: 'joined', joiners: await served.join() })}\n`);
        } catch (err) {
          process.stdout.write(
            `${JSON.stringify({ id: cmd.id, type: 'error', message: err instanceof Error ? err.message : String(err) })}\n`,
          );
        }
      }
    }
  } finally {
    await served.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`members-fleet-server: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
