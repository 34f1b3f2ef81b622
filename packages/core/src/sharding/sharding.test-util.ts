/** Shared checks of the sharding tests: reconcile overlaps across replicas, double-ownership sampling, write churn. */
import type { KubeCluster } from '../cluster/cluster.js';
import { configMapKind } from '../manager/fleet.test-util.js';

/** One reconcile of `cluster` on `replica`; `end` is NaN while it runs. */
export interface ReconcileInterval {
  replica: string;
  cluster: string;
  start: number;
  end: number;
}

/** Pairs of reconciles of one cluster on two replicas that ran at the same time (a running one runs until now). */
export function overlappingReconciles(intervals: readonly ReconcileInterval[], clusters: readonly string[]): string[] {
  const bad: string[] = [];
  const all = intervals.map((r) => (Number.isNaN(r.end) ? { ...r, end: Number.POSITIVE_INFINITY } : r));
  for (const name of clusters) {
    const xs = all.filter((r) => r.cluster === name).sort((a, b) => a.start - b.start);
    let last: ReconcileInterval | undefined;
    for (const x of xs) {
      if (last && last.replica !== x.replica && x.start < last.end) bad.push(`${name}: ${last.replica} and ${x.replica}`);
      if (!last || x.end > last.end) last = x;
    }
  }
  return bad;
}

/** Samples `engagedBy` every few ms: a cluster engaged on two replicas at once is recorded. */
export function watchForDoubleOwnership(engagedBy: () => Map<string, string[]>): { stop: () => string[] } {
  const seen: string[] = [];
  const timer = setInterval(() => {
    for (const [c, owners] of engagedBy()) if (owners.length > 1) seen.push(`${c}: ${owners.join(', ')}`);
  }, 5);
  return {
    stop: () => {
      clearInterval(timer);
      return seen;
    },
  };
}

/** Keeps one ConfigMap per member changing, so every owner reconciles all the time. `stop` rethrows a failed write. */
export function churn(members: readonly KubeCluster[]): { stop: () => Promise<void> } {
  const ac = new AbortController();
  const loops = members
    .map(async (t, i) => {
      let n = 0;
      while (!ac.signal.aborted) {
        try {
          await t.client.patch(
            configMapKind,
            { namespace: 'default', name: 'churn' },
            { type: 'merge', body: { data: { n: String(++n) } } },
            { signal: ac.signal },
          );
        } catch (err) {
          if (!ac.signal.aborted) throw new Error(`churn on member server ${i} failed`, { cause: err });
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })
    .map((p) =>
      p.then(
        () => undefined,
        (err: unknown) => (err instanceof Error ? err : new Error(`churn loop failed: ${String(err)}`)),
      ),
    );
  return {
    stop: async () => {
      ac.abort();
      const failure = (await Promise.all(loops)).find((e) => e !== undefined);
      if (failure) throw failure;
    },
  };
}
