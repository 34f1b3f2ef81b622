/** Command-line options of `npm run bench`. */
import { parseArgs } from 'node:util';
import { BenchArgsError } from './errors.js';
import { IMPL_NAMES, type ImplName } from './impls.js';

export const SCENARIO_NAMES = [
  'engage',
  'throughput',
  'latency',
  'memory',
  'scale',
  'objects',
  'projects',
  'namespaces',
  'parity',
] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

export interface BenchArgs {
  quick: boolean;
  json: string | undefined;
  /** Folder the SVG charts go to. */
  charts: string;
  /** Draw the charts of this earlier --json report instead of running anything. */
  fromJson: string | undefined;
  scenarios: ScenarioName[];
  impls: ImplName[];
  help: boolean;
}

export const USAGE = `Usage: npm run bench -- [--quick] [--json FILE] [--charts DIR] [--scenarios LIST] [--impls LIST]
       npm run bench -- --from-json FILE [--charts DIR]

Runs the benchmark scenarios one after another and prints a table for each; every figure of multicluster-runtime
(mcr) sits beside plain client-node informers and the Go multicluster-runtime (go-mcr, where Go is installed),
measured in the same run against the same in-memory API servers. The scale scenarios (projects: 1,000 Milo
projects in one process; namespaces: 1,000 namespaces of one API server) run mcr alone: no baseline has their
providers; scale (5,000 kubeconfig-file clusters in one process) runs mcr and client-node (the Go baseline engages
one cluster at a time).

Options:
  --quick            Small sizes and short windows (CI smoke, under two minutes).
  --json FILE        Also write every result as JSON to FILE.
  --charts DIR       Write an SVG chart per scenario there (default: bench-charts).
  --from-json FILE   Run nothing: print the tables and draw the charts of an earlier --json report.
  --scenarios LIST   Comma-separated subset of: ${SCENARIO_NAMES.join(', ')} (default: all).
  --impls LIST       Comma-separated subset of: ${IMPL_NAMES.join(', ')} (default: all).
  -h, --help         Show this help.`;

function list<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T[] {
  if (value === undefined) return [...allowed];
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = items.filter((s) => !(allowed as readonly string[]).includes(s));
  if (bad.length || items.length === 0)
    throw new BenchArgsError(`${flag} takes a comma-separated subset of ${allowed.join(', ')}; got ${value}`);
  return allowed.filter((a) => items.includes(a));
}

export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        quick: { type: 'boolean', default: false },
        json: { type: 'string' },
        charts: { type: 'string', default: 'bench-charts' },
        'from-json': { type: 'string' },
        scenarios: { type: 'string' },
        impls: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (err) {
    throw new BenchArgsError((err as Error).message);
  }
  if (values.json === '') throw new BenchArgsError('--json needs a file name');
  if (values.charts === '') throw new BenchArgsError('--charts needs a folder name');
  if (values['from-json'] === '') throw new BenchArgsError('--from-json needs a file name');
  return {
    quick: values.quick,
    json: values.json,
    charts: values.charts,
    fromJson: values['from-json'],
    scenarios: list('--scenarios', values.scenarios, SCENARIO_NAMES),
    impls: list('--impls', values.impls, IMPL_NAMES),
    help: values.help,
  };
}
