/**
 * Import cycles at three scales: between files, between folders, and between packages. A folder is a concept folder
 * directly under a package's `src/` (one folder per concept): its subfolders are parts of it, so a part using its
 * concept's shared pieces is no cycle; a file directly in `src/` (the index, a shared helper) stands alone. Each strongly connected component of more than one node is one cycle; it is reported as
 * one concrete loop through it, with the imports that make each step, so the message says where to cut.
 */
import type { ImportEdge, ImportGraph } from './import-graph.js';

export type Scale = 'file' | 'folder' | 'package';

export interface Cycle {
  readonly scale: Scale;
  /** Every node of the strongly connected component, sorted. */
  readonly members: readonly string[];
  /** One loop through the component: `loop[0]` imports `loop[1]` … imports `loop[0]`. */
  readonly loop: readonly string[];
  /** For each step of the loop, one import that makes it. */
  readonly evidence: readonly ImportEdge[];
}

/** Every cycle of the graph, files first, then folders, then packages. */
export function findCycles(graph: ImportGraph): Cycle[] {
  const folderEdges = graph.fileEdges.map((e) => ({ ...e, node: { from: conceptOf(e.from), to: conceptOf(e.to) } }));
  const packageEdges = graph.packageEdges.map((e) => ({ ...e, node: { from: graph.packageOf.get(e.from)!, to: e.to } }));
  return [
    ...cyclesOf(
      'file',
      graph.fileEdges.map((e) => ({ ...e, node: { from: e.from, to: e.to } })),
    ),
    ...cyclesOf('folder', folderEdges),
    ...cyclesOf('package', packageEdges),
  ];
}

/** `packages/core/src/cache/testing/x.ts` → `packages/core/src/cache`; `packages/core/src/index.ts` → itself. */
export function conceptOf(file: string): string {
  const parts = file.split('/');
  const src = parts.indexOf('src');
  return src >= 0 && parts.length > src + 2 ? parts.slice(0, src + 2).join('/') : file;
}

/** How a cycle reads in a failure message. */
export function describeCycle(cycle: Cycle): string {
  const steps = cycle.evidence.map((e) => `    ${e.from} imports '${e.specifier}'`);
  const more = cycle.members.length > cycle.loop.length ? [`    (tied in the same knot: ${cycle.members.join(', ')})`] : [];
  return [`${cycle.scale} cycle: ${[...cycle.loop, cycle.loop[0]].join(' -> ')}`, ...steps, ...more].join('\n');
}

type NodeEdge = ImportEdge & { readonly node: { readonly from: string; readonly to: string } };

function cyclesOf(scale: Scale, edges: readonly NodeEdge[]): Cycle[] {
  const out = new Map<string, Map<string, ImportEdge>>();
  for (const e of edges) {
    if (e.node.from === e.node.to) continue;
    const targets = out.get(e.node.from) ?? new Map<string, ImportEdge>();
    out.set(e.node.from, targets);
    if (!targets.has(e.node.to)) targets.set(e.node.to, e);
    if (!out.has(e.node.to)) out.set(e.node.to, new Map<string, ImportEdge>());
  }
  return stronglyConnected(out)
    .filter((component) => component.length > 1)
    .map((component) => {
      const members = [...component].sort();
      const loop = loopThrough(members[0]!, new Set(members), out);
      const evidence = loop.map((node, i) => out.get(node)!.get(loop[(i + 1) % loop.length]!)!);
      return { scale, members, loop, evidence };
    });
}

/** Tarjan's algorithm, iterative (a deep import chain must not overflow the stack). */
function stronglyConnected(out: ReadonlyMap<string, ReadonlyMap<string, unknown>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  for (const root of [...out.keys()].sort()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; targets: Iterator<string> }> = [];
    const visit = (node: string) => {
      index.set(node, next);
      low.set(node, next);
      next++;
      stack.push(node);
      onStack.add(node);
      work.push({ node, targets: [...out.get(node)!.keys()].sort()[Symbol.iterator]() });
    };
    visit(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const step = frame.targets.next();
      if (!step.done) {
        const target = step.value;
        if (!index.has(target)) visit(target);
        else if (onStack.has(target)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        components.push(component);
      }
    }
  }
  return components;
}

/** The shortest loop from `start` back to itself inside the component (breadth-first). */
function loopThrough(start: string, inside: ReadonlySet<string>, out: ReadonlyMap<string, ReadonlyMap<string, unknown>>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const target of [...out.get(node)!.keys()].sort()) {
      if (!inside.has(target)) continue;
      if (target === start) {
        const loop = [node];
        while (loop[0] !== start) loop.unshift(previous.get(loop[0]!)!);
        return loop;
      }
      if (previous.has(target)) continue;
      previous.set(target, node);
      queue.push(target);
    }
  }
  return [start]; // unreachable for a component of more than one node
}
