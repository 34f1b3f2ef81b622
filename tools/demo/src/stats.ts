/** Counts what the demo's controllers do, per cluster, for the live view and the final summary. */
import type { ClusterName, ReconcileFunc } from '@multicluster-runtime/core';

export interface ClusterRow {
  cluster: ClusterName;
  reconciles: Record<string, number>;
  errors: number;
  engaged: boolean;
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
