/**
 * Where a runner's CPU goes, by what the work is for: a V8 CPU profile's busy time (as `foldProfile` merges it) split
 * into named parts, each sample counted for the deepest frame of its stack that a part claims, so JSON.parse under
 * the watch decoder counts as decoding and a Map lookup under the work queue as the queue. The parts are written for
 * the bench's runners (mcr's runtime and client-node's informer); what none claims is "other". This is how the bench
 * README says which part of mcr's CPU per event each guarantee costs, beside client-node's.
 *
 *   node tools/bench/dist/profile-breakdown.js PROFILE.cpuprofile [--skip-seconds 5] [--ms-per-1k-events N]
 */
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { loadFolded, type Frame } from './flamegraph.js';

/**
 * What a part is matched on: a frame's function, file (base name) and where its code comes from (as the flame graph
 * colours it: multicluster-runtime, dependency, node, gc, v8 or bench).
 */
export type FrameInfo = Pick<Frame, 'fn' | 'file' | 'category'>;

/** The parts, most specific first: a frame takes the first part whose test it passes. */
export const parts: ReadonlyArray<readonly [string, (f: FrameInfo) => boolean]> = [
  ['garbage collection', (f) => f.fn === '(garbage collector)'],
  [
    'decoding watch lines (JSON.parse)',
    (f) => f.fn === 'decodeLine' || (f.category === 'dependency' && f.file === 'watch.js' && f.fn !== 'doneCallOnce'),
  ],
  ['store: deep freeze', (f) => f.fn === 'deepFreeze'],
  ['store: drop managedFields', (f) => f.fn === 'stripManagedFields'],
  ['store: keep and index', (f) => f.category === 'multicluster-runtime' && f.file === 'store.js'],
  ['cache read: copy', (f) => f.fn === 'cloneJson' || (f.fn === 'copy' && f.file === 'informer-cache.js')],
  ['cache read: find the cluster and object', (f) => ['informer-cache.js', 'cluster-set.js'].includes(f.file) || f.fn === 'getCluster'],
  ['metrics', (f) => f.category === 'multicluster-runtime' && ['prometheus.js', 'tally.js', 'fleet-ledger.js'].includes(f.file)],
  ['work queue: dedup, fairness, hand-off', (f) => f.category === 'multicluster-runtime' && /queue|limiter|deque|delay-heap/.test(f.file)],
  [
    'event handler',
    (f) => f.category === 'multicluster-runtime' && ['kind.js', 'enqueue-for-object.js', 'object-request.js'].includes(f.file),
  ],
  [
    'worker and reconcile context',
    (f) => f.category === 'multicluster-runtime' && ['controller.js', 'reconcile-context.js', 'in-flight.js', 'linked.js'].includes(f.file),
  ],
  [
    'informer: watch stream and dispatch',
    (f) => f.category === 'multicluster-runtime' && ['informer.js', 'watcher.js', 'transport.js', 'response-body.js'].includes(f.file),
  ],
  ["client-node's informer and cache", (f) => f.category === 'dependency' && ['cache.js', 'informer.js'].includes(f.file)],
  ['the reconciler: record the object', (f) => f.category === 'bench'],
  [
    'HTTP, TLS and streams',
    (f) => f.category === 'node' || (f.category === 'dependency' && f.file !== 'json.js') || f.fn.startsWith('wasm') || f.fn === 'decode',
  ],
  ['promises and microtasks', (f) => f.fn === 'runMicrotasks' || f.fn === 'processTicksAndRejections'],
];

const other = 'other';

/** One part's share of the busy time. */
export interface BreakdownRow {
  part: string;
  micros: number;
  percent: number;
}

/** Splits a folded profile's busy time into parts, largest first. */
export function breakdown(root: Frame): BreakdownRow[] {
  const micros = new Map<string, number>();
  const walk = (frame: Frame, inherited: string): void => {
    const part = partOf(frame) ?? inherited;
    if (frame.self > 0) micros.set(part, (micros.get(part) ?? 0) + frame.self);
    for (const child of frame.children.values()) walk(child, part);
  };
  for (const child of root.children.values()) walk(child, other);
  return [...micros]
    .map(([part, us]) => ({ part, micros: us, percent: root.total > 0 ? (100 * us) / root.total : 0 }))
    .sort((a, b) => b.micros - a.micros);
}

function partOf(frame: Frame): string | undefined {
  return parts.find(([, test]) => test(frame))?.[0];
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { 'skip-seconds': { type: 'string', default: '5' }, 'ms-per-1k-events': { type: 'string' } },
  });
  const [input] = positionals;
  const skip = Number(values['skip-seconds']);
  const perEvent = values['ms-per-1k-events'] === undefined ? undefined : Number(values['ms-per-1k-events']);
  if (!input || positionals.length > 1 || !(skip >= 0) || (perEvent !== undefined && !(perEvent > 0))) {
    process.stderr.write(
      'usage: node tools/bench/dist/profile-breakdown.js PROFILE.cpuprofile [--skip-seconds 5] [--ms-per-1k-events N]\n',
    );
    return 2;
  }
  const root = await loadFolded('profile-breakdown', input, skip);
  if (!root) return 1;
  process.stdout.write(`${basename(input)}: ${(root.total / 1000).toFixed(0)} ms busy after the first ${skip} s\n`);
  for (const row of breakdown(root)) {
    const share = `${row.percent.toFixed(1).padStart(5)} %`;
    const ms = perEvent === undefined ? '' : `  ${((perEvent * row.percent) / 100).toFixed(1).padStart(6)} ms per 1,000 events`;
    process.stdout.write(`${share}${ms}  ${row.part}\n`);
  }
  return 0;
}

if (process.argv[1] && import.meta.url.endsWith(basename(process.argv[1]))) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`profile-breakdown: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
