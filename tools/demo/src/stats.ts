/** Counts what the demo's controllers do, per cluster, for the live view and the final summary. */
import type { ClusterName, ReconcileFunc } from '@multicluster-runtime/core';
import type { ClusterStatus } from '@multicluster-runtime/core/providers';

export interface ClusterRow {
  cluster: ClusterName;
  reconciles: Record<string, number>;
  errors: number;
  engaged: boolean;
  /** What the provider says of the cluster (`engaged`, `unreachable`, `rejected`, …), when it reports statuses. */
  state?: string;
  /** Whether an engaged cluster's API server answers: `ok`, or `down 12s` since it stopped answering. */
  health?: string;
}

export class DemoStats {
  readonly startedAt = Date.now();
  private readonly rows = new Map<ClusterName, ClusterRow>();
  readonly events: string[] = [];

  /** Wraps a reconciler so each call is counted under its controller and cluster. */
  count(controller: string, reconcile: ReconcileFunc): ReconcileFunc {
    return async (req, ctx) => {
      const row = this.row(req.clusterName);
      try {
        const result = await reconcile(req, ctx);
        row.reconciles[controller] = (row.reconciles[controller] ?? 0) + 1;
        return result;
      } catch (err) {
        row.errors++;
        throw err;
      }
    };
  }

  note(line: string): void {
    const t = ((Date.now() - this.startedAt) / 1000).toFixed(1).padStart(6);
    this.events.push(`${t}s  ${line}`);
    if (this.events.length > 8) this.events.shift();
  }

  setEngaged(names: readonly ClusterName[]): void {
    const live = new Set(names);
    for (const name of live) this.row(name).engaged = true;
    for (const row of this.rows.values()) row.engaged = live.has(row.cluster);
  }

  /** Takes the provider's view of every cluster it knows; a cluster it forgot keeps no state (it is gone). */
  setStatuses(statuses: ReadonlyMap<ClusterName, ClusterStatus>, now = Date.now()): void {
    for (const row of this.rows.values()) {
      delete row.state;
      delete row.health;
    }
    for (const [name, status] of statuses) {
      const row = this.row(name);
      row.state = status.state;
      if (status.health) {
        row.health = status.health.reachable ? 'ok' : `down ${Math.round((now - status.health.since.getTime()) / 1000)}s`;
      }
    }
  }

  all(): ClusterRow[] {
    return [...this.rows.values()].sort((a, b) => a.cluster.localeCompare(b.cluster, 'en', { numeric: true }));
  }

  total(controller?: string): number {
    let n = 0;
    for (const row of this.rows.values()) {
      for (const [c, count] of Object.entries(row.reconciles)) if (!controller || c === controller) n += count;
    }
    return n;
  }

  errors(): number {
    let n = 0;
    for (const row of this.rows.values()) n += row.errors;
    return n;
  }

  private row(cluster: ClusterName): ClusterRow {
    let row = this.rows.get(cluster);
    if (!row) {
      row = { cluster, reconciles: {}, errors: 0, engaged: true };
      this.rows.set(cluster, row);
    }
    return row;
  }
}
