/**
 * The `envtest` command: `envtest serve` starts in-memory API servers and writes their kubeconfigs so a person (or
 * kubectl, or a demo) can use them, until SIGINT/SIGTERM.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ApiServer } from './api-server.js';
import { startApiServer } from './api-server.js';

export const USAGE = `Usage: envtest serve [--port N] [--kubeconfig PATH] [--clusters N]

Starts in-memory Kubernetes API servers (HTTPS, client-certificate admin user) and writes a kubeconfig per server.

Options:
  --port N         Port of the first server (default: a free port). With --clusters, server i uses N+i.
  --kubeconfig P   With one cluster: the kubeconfig file to write (default ./envtest.kubeconfig).
                   With --clusters N > 1: a folder, created if missing, holding cluster-<i>.kubeconfig
                   for each server (default ./envtest-kubeconfigs).
  --clusters N     How many servers to start (default 1). Each is an independent cluster.
  -h, --help       Show this help.

Runs until SIGINT or SIGTERM, then stops every server.`;

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

/** Runs the CLI until `signal` aborts; returns the process exit code. */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  signal: AbortSignal,
  onReady?: (servers: readonly ApiServer[]) => void,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        port: { type: 'string' },
        kubeconfig: { type: 'string' },
        clusters: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    io.err(`envtest: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] !== 'serve') {
    io.err(`envtest: expected the command "serve"\n\n${USAGE}`);
    return 2;
  }
  const clusters = values.clusters === undefined ? 1 : Number(values.clusters);
  if (!Number.isInteger(clusters) || clusters < 1 || clusters > 1000) {
    io.err(`envtest: --clusters must be an integer from 1 to 1000, got ${values.clusters}\n\n${USAGE}`);
    return 2;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port + clusters - 1 > 65535) {
    io.err(`envtest: --port must be a port number, got ${values.port}\n\n${USAGE}`);
    return 2;
  }

  const servers: ApiServer[] = [];
  try {
    const target = resolve(values.kubeconfig ?? (clusters === 1 ? 'envtest.kubeconfig' : 'envtest-kubeconfigs'));
    if (clusters > 1) await mkdir(target, { recursive: true });
    for (let i = 0; i < clusters; i++) {
      const server = await startApiServer({ port: port === 0 ? 0 : port + i, name: `cluster-${i}` });
      servers.push(server);
      const file = clusters === 1 ? target : join(target, `cluster-${i}.kubeconfig`);
      await server.writeKubeconfig(file);
      io.out(`envtest: ${server.name} serving at ${server.url}, kubeconfig ${file}`);
    }
    if (clusters === 1) io.out(`envtest: try  kubectl --kubeconfig ${target} get namespaces`);
    io.out('envtest: press Ctrl-C to stop');
    onReady?.(servers);
    if (!signal.aborted) await new Promise<void>((done) => signal.addEventListener('abort', () => done(), { once: true }));
    return 0;
  } catch (err) {
    io.err(`envtest: ${(err as Error).message}`);
    return 1;
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
}

/** Entry point of bin/envtest.js. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const io: CliIo = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) };
  process.exitCode = await runCli(argv, io, controller.signal);
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
}
