/** The report a chaos run prints: what was injected, what the controller and the writer did, and the verdict. */
import type { ChaosReport } from './soak.js';

export function renderReport(r: ChaosReport): string {
  const lines = [
    `Chaos soak: ${r.args.members} members, ${r.args.replicas > 1 ? `${r.args.replicas} sharded replicas, ` : ''}${r.args.durationSec} s of faults, seed ${r.args.seed}`,
    '',
    'fault                   injected',
    ...Object.entries(r.injected).map(([fault, n]) => `${fault.padEnd(24)}${String(n).padStart(8)}`),
    '',
    `writes: ${r.writes.created} created, ${r.writes.updated} updated, ${r.writes.deleted} deleted, ${r.writes.failed} refused (server down, conflict, gone)`,
    `reconciles: ${r.controller.reconciles} (${r.controller.injectedErrors} made to throw, ${r.controller.startedDisengaged} started for a disengaged member)`,
    ...(r.args.replicas > 1 ? [`by replica: ${replicaShares(r)}`, `replicas restarted after losing the leader Lease: ${r.restarts}`] : []),
    `checked: ${r.verdict.sources} sources and ${r.verdict.derived} derived objects in ${r.verdict.members} members`,
    `heap after GC: ${r.heapMiB.warm?.toFixed(1) ?? '-'} MiB warm, ${r.heapMiB.end?.toFixed(1) ?? '-'} MiB at the end` +
      (r.heapMiB.warm === undefined ? ' (run with node --expose-gc to measure)' : ''),
    `open handles: ${r.handles.before.sockets} sockets / ${r.handles.before.timers} timers before, ${r.handles.after.sockets} / ${r.handles.after.timers} after`,
    '',
    ...r.verdict.problems.slice(0, 20).map((p) => `LOST ${p}`),
    ...(r.verdict.problems.length > 20 ? [`… and ${r.verdict.problems.length - 20} more`] : []),
    r.failures.length === 0 ? 'PASS: nothing lost, nothing leaked' : `FAIL: ${r.failures.join('; ')}`,
    '',
  ];
  return lines.join('\n');
}

/** How many reconciles each replica ran: both must have worked for the sharded mode to mean anything. */
function replicaShares(r: ChaosReport): string {
  const counts = new Map<number, number>();
  for (const runs of r.controller.runs.values()) for (const run of runs) counts.set(run.replica, (counts.get(run.replica) ?? 0) + 1);
  return [...counts]
    .sort(([a], [b]) => a - b)
    .map(([replica, n]) => `${replica}: ${n}`)
    .join(', ');
}
