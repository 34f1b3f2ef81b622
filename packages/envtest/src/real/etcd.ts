/**
 * Starts one etcd member for one environment: loopback-only client and peer URLs on fresh ports, a private data
 * folder, and fsync off (test data is thrown away, and fsync dominates etcd's latency on shared CI disks).
 */
import { ManagedProcess } from './managed-process.js';
import { freeLoopbackPort } from './ports.js';
import { httpCall } from './http-request.js';
import { waitUntil } from './wait-until.js';

export interface EtcdOptions {
  readonly binary: string;
  readonly dataDir: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly onOutput?: (component: string, line: string) => void;
}

export interface RunningEtcd {
  readonly clientUrl: string;
  readonly process: ManagedProcess;
}

/** Starts etcd and resolves once it reports healthy; on failure the process is already stopped. */
export async function startEtcd(options: EtcdOptions): Promise<RunningEtcd> {
  const clientUrl = `http://127.0.0.1:${await freeLoopbackPort()}`;
  const peerUrl = `http://127.0.0.1:${await freeLoopbackPort()}`;
  const proc = ManagedProcess.spawn({
    component: 'etcd',
    command: options.binary,
    args: [
      '--name=default',
      `--data-dir=${options.dataDir}`,
      `--listen-client-urls=${clientUrl}`,
      `--advertise-client-urls=${clientUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=default=${peerUrl}`,
      '--unsafe-no-fsync=true',
      '--log-level=warn',
    ],
    onOutput: options.onOutput,
  });
  try {
    await waitUntil(
      async (signal) => {
        const answer = await httpCall({ url: `${clientUrl}/health`, signal, timeoutMs: 2_000 });
        return answer.status === 200 && answer.text.includes('"true"') ? true : `GET /health: ${answer.status} ${answer.text}`;
      },
      { component: 'etcd', timeoutMs: options.timeoutMs, processes: [proc], signal: options.signal },
    );
  } catch (err) {
    await proc.stop().catch(() => undefined);
    throw err;
  }
  return { clientUrl, process: proc };
}
