/**
 * What the demo shows while it runs: on a terminal, a table redrawn in place (clusters engaged, reconciles per
 * cluster and controller, errors, queue depth, recent fleet events); elsewhere, one plain log line every few seconds.
 */
import type { ClusterName } from '@multicluster-runtime/core';
import type { ClusterStatus } from '@multicluster-runtime/core/providers';
import { sleep } from '@multicluster-runtime/core/signal';
import type { DemoStats } from './stats.js';

export interface ViewSource {
  stats: DemoStats;
  /** Items waiting in the controllers' queues. */
  queueDepth(): Promise<number>;
  /** Names of engaged clusters. */
  engaged(): string[];
  /** The provider's status of every cluster it knows, when it reports them. */
  statuses?(): ReadonlyMap<ClusterName, ClusterStatus>;
}

/** Refreshes the stats from the manager and the provider (not after shutdown: the last view is kept). */
function refresh(source: ViewSource): void {
  if (source.statuses) source.stats.setStatuses(source.statuses());
  source.stats.setEngaged(source.engaged());
}

function shortName(cluster: string): string {
  if (cluster === '') return '(host)';
  const plus = cluster.lastIndexOf('+');
  return plus >= 0 ? cluster.slice(plus + 1) : cluster;
}

/** The table; `final` keeps the last engagement seen (after shutdown nothing is engaged any more). */
export async function renderTable(source: ViewSource, final = false): Promise<string> {
  const { stats } = source;
  if (!final) refresh(source);
  const engagedCount = stats.all().filter((r) => r.engaged).length;
  const uptime = ((Date.now() - stats.startedAt) / 1000).toFixed(0);
  const rows = stats.all();
  const lines = [
    `multicluster-runtime demo — ${uptime}s — ${engagedCount} clusters engaged — queue depth ${await source.queueDepth()}`,
    '',
    `${'CLUSTER'.padEnd(18)}${'STATE'.padEnd(13)}${'HEALTH'.padEnd(10)}${'STAMP'.padStart(8)}${'MIRROR'.padStart(8)}${'ERRORS'.padStart(8)}`,
    ...rows.map(
      (r) =>
        `${shortName(r.cluster).padEnd(18)}${(r.state ?? (r.engaged ? 'engaged' : 'gone')).padEnd(13)}${(r.health ?? '-').padEnd(10)}` +
        `${String(r.reconciles['stamp'] ?? 0).padStart(8)}${String(r.reconciles['mirror'] ?? 0).padStart(8)}${String(r.errors).padStart(8)}`,
    ),
    '',
    `total reconciles ${stats.total()}  errors ${stats.errors()}`,
    '',
    'recent:',
    ...stats.events.map((e) => `  ${e}`),
    ...(final ? [] : ['', 'Ctrl-C to stop']),
  ];
  return lines.join('\n');
}

/** Refreshes the view until `signal` aborts. */
export async function runView(source: ViewSource, live: boolean, signal: AbortSignal, out: NodeJS.WritableStream): Promise<void> {
  let last = 0;
  while (!signal.aborted) {
    if (live) {
      out.write(`\x1b[H\x1b[2J${await renderTable(source)}\n`);
    } else {
      refresh(source);
      const total = source.stats.total();
      const t = ((Date.now() - source.stats.startedAt) / 1000).toFixed(1);
      out.write(
        `t=${t}s clusters=${source.engaged().length} reconciles=${total} (+${total - last}) errors=${source.stats.errors()} depth=${await source.queueDepth()}\n`,
      );
      last = total;
    }
    // sleep() takes its abort listener off the signal when the time is up: one listener per refresh, left on the
    // run's signal, piled up (MaxListenersExceededWarning after ten refreshes).
    await sleep(live ? 500 : 2_000, signal);
  }
}
