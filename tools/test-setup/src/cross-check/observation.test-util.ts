/**
 * What one provider implementation reported while the cross-check ran: the clusters it has engaged, and per engaged
 * cluster the state it last reconciled each object at. Both sides (the upstream Go program and this package) feed
 * one of these, so a step's outcome compares as plain data.
 *
 * A cluster's reconciles are forgotten when it is engaged again, so re-engaging shows up as reconciles. "Changed"
 * keys are those whose last reconciled state differs from what it was when the step began: reconciling an object
 * again at the same resourceVersion (a relist or resync may hand an unchanged object over again) is not a change.
 */

/** The state a reconcile read: absent, or present at a resourceVersion with some content. */
export interface Seen {
  readonly found: boolean;
  readonly resourceVersion?: string;
  /** What the cross-check compares besides the version (ConfigMap data, LogicalCluster initializers). */
  readonly content?: unknown;
}

/** JSON with object keys sorted at every level: what two sides saw compares equal whatever order keys came in. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : v,
  );
}

const sameSeen = (a: Seen | undefined, b: Seen | undefined): boolean => canonicalJson(a) === canonicalJson(b);

export class Observation {
  readonly engaged = new Set<string>();
  /** `+cluster` / `-cluster`, in order. */
  readonly history: string[] = [];
  /** cluster → `namespace/name` → last reconcile. */
  private readonly reconciled = new Map<string, Map<string, Seen>>();
  private atMark = new Map<string, Seen | undefined>();
  private readonly waiters = new Set<() => void>();

  constructor(readonly name: string) {}

  /** The engagement id of each engaged cluster (see engage). */
  private readonly engagementIds = new Map<string, string>();

  /**
   * `id` names this engagement: a report that an earlier engagement of the cluster ended (it may come after the next
   * one began, as the Go side reports ends from a goroutine) then leaves the cluster engaged.
   */
  engage(cluster: string, id = ''): void {
    this.engaged.add(cluster);
    this.engagementIds.set(cluster, id);
    this.history.push(`+${cluster}`);
    this.reconciled.set(cluster, new Map());
    this.notify();
  }

  disengage(cluster: string, id = ''): void {
    if (this.engagementIds.get(cluster) === id) {
      this.engaged.delete(cluster);
      this.engagementIds.delete(cluster);
    }
    this.history.push(`-${cluster}`);
    this.notify();
  }

  reconcile(cluster: string, key: string, seen: Seen): void {
    let objects = this.reconciled.get(cluster);
    if (!objects) this.reconciled.set(cluster, (objects = new Map()));
    const id = `${cluster}|${key}`;
    if (!this.atMark.has(id)) this.atMark.set(id, objects.get(key));
    objects.set(key, seen);
    this.notify();
  }

  /** Starts a step: changes are counted from here. */
  mark(): void {
    this.atMark = new Map();
  }

  /** `cluster|namespace/name` of every object of an engaged cluster whose last reconciled state changed since mark(). */
  changed(): string[] {
    const out: string[] = [];
    for (const [id, before] of this.atMark) {
      const [cluster, key] = id.split('|') as [string, string];
      if (!this.engaged.has(cluster)) continue;
      if (!sameSeen(before, this.reconciled.get(cluster)?.get(key))) out.push(id);
    }
    return out.sort();
  }

  /** Last reconciled state of every object of the engaged clusters, as `cluster|namespace/name` → state. */
  state(): Record<string, Seen> {
    const out: Record<string, Seen> = {};
    for (const cluster of [...this.engaged].sort()) {
      for (const [key, seen] of [...(this.reconciled.get(cluster) ?? [])].sort(([a], [b]) => a.localeCompare(b))) {
        out[`${cluster}|${key}`] = seen;
      }
    }
    return out;
  }

  /** The implementation stopped reporting for good (its process died): why. */
  failure: string | undefined;

  fail(reason: string): void {
    this.failure ??= reason;
    this.notify();
  }

  /** Resolves at the next report of this observation, or after `ms` at the latest. */
  changes(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }
}
