/**
 * The Milo fleet server: a child process serving a fake Milo (envtest's startMiloServer) with N ready Projects, each
 * project's control plane seeded with M ConfigMaps in `default`, so that the server's CPU and memory never count
 * against the process being measured. Writes Milo's admin kubeconfig to `<dir>/milo.kubeconfig`, prints
 * `{"type":"ready",…}`, then serves until stdin closes.
 */
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { startMiloServer } from '@multicluster-runtime/envtest/milo';
import { mapConcurrent } from '../concurrency.js';
import { BENCH_NAMESPACE, objectName } from './fleet-names.js';

/** The name of the i-th project: sorted names sort like their numbers. */
function projectName(i: number): string {
  return `project-${String(i).padStart(4, '0')}`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { projects: { type: 'string' }, objects: { type: 'string', default: '0' }, dir: { type: 'string' } },
  });
  const projects = Number(values.projects);
  const objects = Number(values.objects);
  if (!Number.isInteger(projects) || projects < 0 || !Number.isInteger(objects) || objects < 0 || !values.dir) {
    throw new Error('usage: milo-fleet-server --projects N --objects M --dir FOLDER');
  }
  const milo = await startMiloServer({ name: 'milo' });
  try {
    const names = Array.from({ length: projects }, (_, i) => projectName(i));
    await mapConcurrent(names, 16, async (name) => {
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
    });
    await milo.writeKubeconfig(join(values.dir, 'milo.kubeconfig'));
    process.stdout.write(`${JSON.stringify({ type: 'ready', projects, objects, pid: process.pid })}\n`);
    // Serves until the bench closes stdin (or says stop).
    for await (const line of createInterface({ input: process.stdin })) {
      if (line.includes('"stop"')) break;
    }
  } finally {
    await milo.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`milo-fleet-server: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
