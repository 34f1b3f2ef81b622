/**
 * A flame graph of a V8 CPU profile (`.cpuprofile`, as MCR_BENCH_CPU_PROF writes), as SVG: width is CPU time, each
 * row a stack depth, so where a runner spends its time shows at a glance. Idle time and the first seconds (module
 * loading, engagement) are left out. Frames are merged by function and place, so a function reached by the same path
 * is one box however many samples hit it. Drawn with Vega-Lite, like the bench's charts.
 *
 *   node tools/bench/dist/flamegraph.js PROFILE.cpuprofile OUT.svg [--skip-seconds 5] [--title TEXT]
 */
import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import type { TopLevelSpec } from 'vega-lite';
import { renderSvg } from './charts.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** The parts of a `.cpuprofile` the graph needs. */
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A function at one place in the merged stacks, with its own and its subtree's busy time (microseconds). */
export interface Frame {
  name: string;
  /** The function's name, and its file's base name ('' for V8's own frames, such as the garbage collector). */
  fn: string;
  file: string;
  category: string;
  self: number;
  total: number;
  children: Map<string, Frame>;
}

/** One box of the graph: a frame at a depth, spanning [start, end) microseconds of CPU time. */
export interface FlameBox {
  name: string;
  category: string;
  depth: number;
  start: number;
  end: number;
  /** Share of all busy time, percent. */
  percent: number;
}

function label(frame: ProfileNode['callFrame']): Pick<Frame, 'name' | 'fn' | 'file' | 'category'> {
  const fn = frame.functionName || '(anonymous)';
  const url = frame.url;
  if (url === '') return { name: fn, fn, file: '', category: fn.startsWith('(garbage') ? 'gc' : 'v8' };
  const file = basename(url.replace(/^file:\/\//, ''));
  const where = { name: `${fn} ${file}:${frame.lineNumber + 1}`, fn, file };
  if (url.startsWith('node:')) return { ...where, category: 'node' };
  if (url.includes('/node_modules/')) return { ...where, category: 'dependency' };
  if (url.includes('/packages/')) return { ...where, category: 'multicluster-runtime' };
  return { ...where, category: 'bench' };
}

/** Merges the profile's samples after `skipMicros` into a tree of frames; returns it and the busy time it holds. */
export function foldProfile(profile: CpuProfile, skipMicros: number): Frame {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const root: Frame = { name: 'all', fn: 'all', file: '', category: 'all', self: 0, total: 0, children: new Map() };
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    const weight = profile.timeDeltas[i + 1] ?? 0;
    if (t - profile.startTime < skipMicros || weight <= 0) continue;
    const stack: ProfileNode['callFrame'][] = [];
    for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parent.get(id)) {
      const node = byId.get(id);
      if (node) stack.push(node.callFrame);
    }
    stack.reverse(); // root first
    if (stack[0]?.functionName === '(root)') stack.shift();
    if (stack.length === 0 || stack.at(-1)?.functionName === '(idle)') continue;
    let frame = root;
    root.total += weight;
    for (const callFrame of stack) {
      const labelled = label(callFrame);
      const name = labelled.name;
      let child = frame.children.get(name);
      if (!child) frame.children.set(name, (child = { ...labelled, self: 0, total: 0, children: new Map() }));
      child.total += weight;
      frame = child;
    }
    frame.self += weight;
  }
  return root;
}

/** Lays the tree out as boxes, widest first at each level; boxes under `minPercent` of the total are left out. */
export function layoutFlame(root: Frame, minPercent = 0.2): FlameBox[] {
  const boxes: FlameBox[] = [];
  const minimum = (root.total * minPercent) / 100;
  const place = (frame: Frame, depth: number, start: number): void => {
    if (frame.total < minimum) return;
    boxes.push({
      name: frame.name,
      category: frame.category,
      depth,
      start,
      end: start + frame.total,
      percent: (100 * frame.total) / root.total,
    });
    let offset = start;
    for (const child of [...frame.children.values()].sort((a, b) => b.total - a.total)) {
      place(child, depth + 1, offset);
      offset += child.total;
    }
  };
  place(root, 0, 0);
  return boxes;
}

const categories = {
  domain: ['multicluster-runtime', 'dependency', 'node', 'gc', 'v8', 'bench', 'all'],
  range: ['#4c78a8', '#f58518', '#bab0ac', '#e45756', '#9d755d', '#54a24b', '#d8d8d8'],
};

/** The Vega-Lite spec of the graph. */
export function flameSpec(boxes: FlameBox[], title: string): TopLevelSpec {
  const depth = Math.max(0, ...boxes.map((b) => b.depth)) + 1;
  const rowHeight = 16;
  const total = boxes.find((b) => b.depth === 0)?.end ?? 1;
  const values = boxes.map((b) => ({ ...b, text: `${b.name} (${b.percent.toFixed(1)} %)`, depth1: b.depth + 1 }));
  const x = { field: 'start', type: 'quantitative' as const, scale: { domain: [0, total] }, axis: null };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    background: 'white',
    width: 1200,
    height: depth * rowHeight,
    data: { values },
    encoding: {
      y: { field: 'depth', type: 'ordinal', axis: null, scale: { paddingInner: 0.05 }, sort: 'descending' },
    },
    layer: [
      {
        mark: { type: 'rect', stroke: 'white', strokeWidth: 0.5 },
        encoding: {
          x,
          x2: { field: 'end' },
          color: { field: 'category', type: 'nominal', title: 'code', scale: categories, legend: { labelLimit: 240 } },
          tooltip: [{ field: 'text', type: 'nominal' }],
        },
      },
      {
        mark: { type: 'text', align: 'left', dx: 3, fontSize: 9, limit: { expr: 'datum.pixels - 6' } as never },
        transform: [{ calculate: `(datum.end - datum.start) / ${total} * 1200`, as: 'pixels' }, { filter: 'datum.pixels > 40' }],
        encoding: { x, text: { field: 'text', type: 'nominal' } },
      },
    ],
  };
}

/**
 * Reads a `.cpuprofile` and folds it (see foldProfile). When it cannot be read or has no busy time after the first
 * `skipSeconds`, says so on stderr as `tool` and returns undefined.
 */
export async function loadFolded(tool: string, input: string, skipSeconds: number): Promise<Frame | undefined> {
  let profile: CpuProfile;
  try {
    profile = JSON.parse(await readFile(input, 'utf8')) as CpuProfile;
    if (!Array.isArray(profile.nodes) || !Array.isArray(profile.samples)) throw new Error('no nodes or samples: not a .cpuprofile');
  } catch (err) {
    process.stderr.write(`${tool}: cannot read ${input}: ${err instanceof Error ? err.message : String(err)}\n`);
    return undefined;
  }
  const root = foldProfile(profile, skipSeconds * 1e6);
  if (root.total === 0) process.stderr.write(`${tool}: ${input} has no busy samples after the first ${skipSeconds} s\n`);
  return root.total === 0 ? undefined : root;
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { 'skip-seconds': { type: 'string', default: '5' }, title: { type: 'string' } },
  });
  const [input, output] = positionals;
  const skip = Number(values['skip-seconds']);
  if (!input || !output || positionals.length > 2 || !(skip >= 0)) {
    process.stderr.write('usage: node tools/bench/dist/flamegraph.js PROFILE.cpuprofile OUT.svg [--skip-seconds 5] [--title TEXT]\n');
    return 2;
  }
  const root = await loadFolded('flamegraph', input, skip);
  if (!root) return 1;
  const title = values.title ?? `${basename(input)}: ${(root.total / 1000).toFixed(0)} ms of CPU after the first ${skip} s`;
  await writeFile(output, await renderSvg(flameSpec(layoutFlame(root), title)));
  process.stderr.write(`flamegraph: ${output}\n`);
  return 0;
}

if (process.argv[1] && import.meta.url.endsWith(basename(process.argv[1]))) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`flamegraph: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
