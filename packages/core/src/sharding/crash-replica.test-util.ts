/**
 * One sharding replica as its own process, for the crash test (sharding.crash.test.ts): a manager with sharding
 * against the host and member servers named in the `SHARD_CRASH_REPLICA` environment variable (JSON), reconciling
 * ConfigMaps. It reports on stdout, one JSON object a line, with wall-clock times in ms (`performance.timeOrigin +
 * performance.now()`, comparable across processes on one machine): `ready`, each reconcile's `start` and `end`, and
 * its `engaged` clusters whenever they change. The test SIGKILLs it, so nothing here is meant to run at the end; it
 * only exits by itself when its stdin closes (the test process is gone), so it never outlives the test.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { controllerManagedBy } from '../builder/builder.js';
import { silentLogger } from '../log/logger.js';
import { configMapKind, TestFleetProvider } from '../manager/fleet.test-util.js';
import { newManager } from '../manager/manager.js';
import type { ReconcileContext, Request } from '../reconcile/types.js';
import type { ShardingTimings } from './options.js';

/** What the test passes in `SHARD_CRASH_REPLICA`. */
export interface CrashReplicaConfig {
  group: string;
  id: string;
  timings: ShardingTimings;
  /** Kubeconfig (YAML) of the host that holds the Leases. */
  host: string;
  /** Every member cluster's name and kubeconfig (YAML). */
  members: { name: string; kubeconfig: string }[];
}

/** A line the replica writes on stdout. */
export type CrashReplicaEvent =
  | { type: 'ready'; t: number }
  | { type: 'start'; seq: number; cluster: string; t: number }
  | { type: 'end'; seq: number; t: number }
  | { type: 'engaged'; clusters: string[]; t: number };

const now = (): number => performance.timeOrigin + performance.now();
const emit = (event: CrashReplicaEvent): void => {
  // Writes to a pipe are synchronous on Linux: a logged start is out before the reconcile goes on.
  process.stdout.write(`${JSON.stringify(event)}\n`);
};
function kubeconfig(yaml: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(yaml);
  return kc;
}

const raw = process.env['SHARD_CRASH_REPLICA'];
if (!raw) throw new Error('SHARD_CRASH_REPLICA (the replica configuration as JSON) is not set');
const config = JSON.parse(raw) as CrashReplicaConfig;

process.stdin.on('close', () => process.exit(0));
process.stdin.resume();

const provider = new TestFleetProvider();
const mgr = newManager(kubeconfig(config.host), provider, {
  logger: silentLogger,
  sharding: { groupName: config.group, namespace: 'default', id: config.id, timings: config.timings },
});
let seq = 0;
controllerManagedBy(mgr)
  .named('record')
  .for(configMapKind)
  .complete(async (req: Request, ctx: ReconcileContext) => {
    const n = ++seq;
    emit({ type: 'start', seq: n, cluster: req.clusterName, t: now() });
    try {
      const cluster = await mgr.getCluster(req.clusterName, ctx.signal);
      await cluster.client.get(configMapKind, req, { signal: ctx.signal });
    } finally {
      emit({ type: 'end', seq: n, t: now() });
    }
  });
void mgr.start(new AbortController().signal).catch((err: unknown) => {
  process.stderr.write(`manager failed: ${String(err)}\n`);
  process.exit(1);
});
await Promise.all(config.members.map((m) => provider.add(m.name, kubeconfig(m.kubeconfig))));
let last = '';
setInterval(() => {
  const clusters = mgr.engagedClusters().sort();
  const key = clusters.join(',');
  if (key !== last) emit({ type: 'engaged', clusters, t: now() });
  last = key;
}, 10);
emit({ type: 'ready', t: now() });
