/** Command-line flags of the demo, parsed with node:util and checked, with a usage text for --help. */
import { parseArgs } from 'node:util';

export interface DemoArgs {
  /** Seconds to run before stopping with a summary; undefined runs until Ctrl-C. */
  durationSec?: number;
  /** Member clusters the embedded fleet starts with. */
  clusters: number;
  /** Most member clusters at once while churning. */
  maxClusters: number;
  /** Seconds between a cluster joining or leaving (0 turns churn off). */
  churnSec: number;
  /** Force plain log lines even on a terminal. */
  plain: boolean;
  /** Real clusters instead of the embedded fleet. */
  source:
    | { kind: 'embedded' }
    | { kind: 'kubeconfig-dir'; dir: string }
    | { kind: 'kind'; prefix?: string }
    | { kind: 'capi'; namespace?: string }
    | { kind: 'namespaces'; selector?: string }
    | { kind: 'garden'; kubeconfig: string; namespace?: string }
    | { kind: 'cluster-profiles'; namespace: string; accessConfig: string };
}

export const usage = `Usage: npm start -- [options]

Runs two multi-cluster controllers on a fleet and shows what they do.

Embedded fleet (default): in-memory API servers, a host and members that join and leave over time through
kubeconfig files. Options:
  --duration SECONDS      stop after this long and print a summary (default: run until Ctrl-C)
  --clusters N            members at start (default 3)
  --max-clusters N        most members at once (default 6)
  --churn SECONDS         a member joins or leaves this often; 0 = never (default 4)
  --plain                 plain log lines instead of the live view

Real clusters (the host is your current kubeconfig context):
  --kubeconfig-dir DIR    every context of every kubeconfig file in DIR is a member
  --kind [PREFIX]         every kind cluster (optionally only names starting with PREFIX) is a member
  --capi [NAMESPACE]      the host is a Cluster API management cluster: every Cluster (optionally only in
                          NAMESPACE) whose control plane is initialized is a member
  --namespaces [SELECTOR] every namespace of the host (optionally only those the label SELECTOR matches, e.g.
                          fleet=on) is a member that reads and writes only its namespace; not \`fleet\`, where
                          the mirror controller writes
  --garden KUBECONFIG [NAMESPACE]
                          KUBECONFIG reaches a Gardener garden (it is the host then): every reconciled, awake
                          Shoot (optionally only in project NAMESPACE, e.g. garden-dev) is a member, reached
                          through admin kubeconfigs renewed before they expire
  --cluster-profiles NAMESPACE --access-config FILE
                          the host is a cluster inventory hub: every healthy ClusterProfile in NAMESPACE is a
                          member, reached through the credential plugins FILE configures (the JSON of Go's
                          --clusterprofile-provider-file)
  -h, --help              show this text
`;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

function positiveInt(name: string, value: string | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer ≥ ${min}, got ${JSON.stringify(value)}`);
  return n;
}

/** Parses argv (without node and script); returns undefined when --help was asked for. */
export function parseDemoArgs(argv: string[]): DemoArgs | undefined {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        duration: { type: 'string' },
        clusters: { type: 'string' },
        'max-clusters': { type: 'string' },
        churn: { type: 'string' },
        plain: { type: 'boolean', default: false },
        'kubeconfig-dir': { type: 'string' },
        kind: { type: 'boolean', default: false },
        capi: { type: 'boolean', default: false },
        namespaces: { type: 'boolean', default: false },
        garden: { type: 'string' },
        'cluster-profiles': { type: 'string' },
        'access-config': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const v = parsed.values;
  if (v.help) return undefined;
  const clusters = positiveInt('clusters', v.clusters, 3, 0);
  const maxClusters = positiveInt('max-clusters', v['max-clusters'], Math.max(6, clusters));
  if (maxClusters < clusters) throw new UsageError('--max-clusters must be at least --clusters');
  const durationSec = v.duration === undefined ? undefined : positiveInt('duration', v.duration, 0);
  let source: DemoArgs['source'] = { kind: 'embedded' };
  const profiles = v['cluster-profiles'];
  const sources = [v['kubeconfig-dir'] !== undefined, v.kind, v.capi, v.namespaces, v.garden !== undefined, profiles !== undefined];
  if (sources.filter(Boolean).length > 1) {
    throw new UsageError('choose one of --kubeconfig-dir, --kind, --capi, --namespaces, --garden and --cluster-profiles');
  }
  if ((profiles === undefined) !== (v['access-config'] === undefined)) {
    throw new UsageError('--cluster-profiles and --access-config come together');
  }
  const positional = parsed.positionals[0];
  if (v['kubeconfig-dir']) source = { kind: 'kubeconfig-dir', dir: v['kubeconfig-dir'] };
  if (profiles !== undefined) source = { kind: 'cluster-profiles', namespace: profiles, accessConfig: v['access-config']! };
  if (v.kind) source = positional ? { kind: 'kind', prefix: positional } : { kind: 'kind' };
  else if (v.capi) source = positional ? { kind: 'capi', namespace: positional } : { kind: 'capi' };
  else if (v.namespaces) source = positional ? { kind: 'namespaces', selector: positional } : { kind: 'namespaces' };
  else if (v.garden !== undefined) {
    if (v.garden === '') throw new UsageError('--garden needs the path of a kubeconfig for the garden');
    source = positional ? { kind: 'garden', kubeconfig: v.garden, namespace: positional } : { kind: 'garden', kubeconfig: v.garden };
  } else if (parsed.positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[0])}`);
  return {
    ...(durationSec !== undefined ? { durationSec } : {}),
    clusters,
    maxClusters,
    churnSec: positiveInt('churn', v.churn, 4, 0),
    plain: v.plain,
    source,
  };
}
