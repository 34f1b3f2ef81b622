/**
 * One SVG chart per scenario, for readers who would rather look than read a table: latency distributions per
 * implementation, engage time and memory per cluster against fleet size, throughput and CPU per event. Drawn by
 * Vega-Lite (specs here, layout and SVG by the library) from the same results the tables and the JSON report hold.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { ScenarioResult } from './scenarios/scenario.js';

type Row = Record<string, unknown>;

const implColors = { domain: ['mcr', 'client-node', 'go-mcr'], range: ['#1f77b4', '#ff7f0e', '#2ca02c'] };
const implColor = { field: 'impl', type: 'nominal', title: 'implementation', scale: implColors } as const;

/**
 * The Vega-Lite spec of a scenario's chart, or undefined for scenarios without one. `others` are the run's other
 * scenarios: the memory chart also shows the scale scenario's 5,000 clusters when both ran.
 */
export function chartSpec(result: ScenarioResult, others: readonly ScenarioResult[] = []): TopLevelSpec | undefined {
  const scale = result.name === 'memory' ? (others.find((o) => o.name === 'scale')?.results ?? []) : [];
  const rows = [...result.results, ...scale] as Row[];
  if (rows.length === 0) return undefined;
  switch (result.name) {
    case 'latency':
      return latencyChart(rows);
    case 'engage':
      return engageChart(rows);
    case 'memory':
      return memoryChart(rows);
    case 'scale':
      // Drawn into the memory chart when both ran.
      return others.some((o) => o.name === 'memory') ? undefined : memoryChart(rows);
    case 'throughput':
      return throughputChart(rows);
    default:
      return undefined;
  }
}

function latencyChart(rows: Row[]): TopLevelSpec {
  const loadTitle: Record<string, string> = { half: 'at half the fleet capacity', saturated: 'at the full capacity (saturated)' };
  const values = rows.flatMap((r) =>
    (r['percentilesMs'] as { p: number; ms: number }[]).map(({ p, ms }) => ({
      impl: r['impl'],
      load: loadTitle[r['load'] as string] ?? r['load'],
      // The tail is what differs: x counts nines (p90 = 1, p99 = 2, p99.9 = 3).
      nines: -Math.log10(1 - p / 100),
      ms: Math.max(ms, 0.01),
    })),
  );
  return {
    title: 'Event -> reconcile latency by percentile',
    data: { values },
    facet: { column: { field: 'load', type: 'nominal', title: null, sort: Object.values(loadTitle) } },
    spec: {
      width: 360,
      height: 240,
      mark: { type: 'line', interpolate: 'monotone' },
      encoding: {
        x: {
          field: 'nines',
          type: 'quantitative',
          title: 'percentile',
          scale: { domain: [0, 3] },
          axis: {
            values: [0, Math.log10(2), 1, 2, 3],
            labelExpr:
              "datum.value < 0.1 ? 'p0' : datum.value < 0.5 ? 'p50' : datum.value < 1.5 ? 'p90' : datum.value < 2.5 ? 'p99' : 'p99.9'",
          },
        },
        y: { field: 'ms', type: 'quantitative', title: 'latency ms (log)', scale: { type: 'log' } },
        color: implColor,
      },
    },
  };
}

function engageChart(rows: Row[]): TopLevelSpec {
  const values = rows.map((r) => ({
    impl: r['impl'],
    source: r['source'] === 'file' ? 'kubeconfig file' : 'kubeconfig Secret',
    clusters: r['clusters'],
    ms: (r['latencyMs'] as { p50: number }).p50,
  }));
  return againstClusters('Cluster appears -> first reconcile, p50, against clusters appearing at once', values, 'source', {
    field: 'ms',
    title: 'p50 ms (log)',
    log: true,
  });
}

function memoryChart(rows: Row[]): TopLevelSpec {
  const values = rows.flatMap((r) => [
    { impl: r['impl'], clusters: r['clusters'], what: 'heap', kib: (r['heapBytesPerCluster'] as number) / 1024 },
    { impl: r['impl'], clusters: r['clusters'], what: 'RSS', kib: (r['rssBytesPerCluster'] as number) / 1024 },
  ]);
  return againstClusters('Memory per engaged idle cluster against fleet size', values, 'what', {
    field: 'kib',
    title: 'KiB per cluster',
    log: false,
  });
}

/** Lines per implementation of `y` against the number of clusters (log), one panel per value of `panel`. */
function againstClusters(title: string, values: Row[], panel: string, y: { field: string; title: string; log: boolean }): TopLevelSpec {
  return {
    title,
    data: { values },
    facet: { column: { field: panel, type: 'nominal', title: null } },
    spec: {
      width: 300,
      height: 240,
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'clusters', type: 'quantitative', title: 'clusters (log)', scale: { type: 'log' } },
        y: { field: y.field, type: 'quantitative', title: y.title, ...(y.log ? { scale: { type: 'log' } } : {}) },
        color: implColor,
      },
    },
  };
}

function throughputChart(rows: Row[]): TopLevelSpec {
  const values = rows.flatMap((r) => [
    {
      impl: r['impl'],
      clusters: `${String(r['clusters'])} clusters`,
      what: 'reconciles/s',
      value: (r['reconcilesPerSecond'] as { median: number }).median,
    },
    {
      impl: r['impl'],
      clusters: `${String(r['clusters'])} clusters`,
      what: 'CPU ms per 1,000 events',
      value: (r['cpuMsPer1000Events'] as { median: number }).median,
    },
  ]);
  return {
    title: 'Throughput under a closed-loop update stream',
    data: { values },
    facet: { row: { field: 'what', type: 'nominal', title: null }, column: { field: 'clusters', type: 'nominal', title: null } },
    resolve: { scale: { y: 'independent' } },
    spec: {
      width: 180,
      height: 160,
      mark: 'bar',
      encoding: {
        x: { field: 'impl', type: 'nominal', title: null, sort: implColors.domain },
        y: { field: 'value', type: 'quantitative', title: null },
        color: implColor,
      },
    },
  };
}

/** Renders a Vega-Lite spec to SVG text, headless. */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Writes `<dir>/<scenario>.svg` for every scenario that has a chart; returns the files written. */
export async function writeCharts(results: readonly ScenarioResult[], dir: string): Promise<string[]> {
  const written: string[] = [];
  for (const result of results) {
    const spec = chartSpec(result, results);
    if (!spec) continue;
    await mkdir(dir, { recursive: true });
    const file = join(dir, `${result.name}.svg`);
    await writeFile(file, await renderSvg({ $schema: 'https://vega.github.io/schema/vega-lite/v6.json', background: 'white', ...spec }));
    written.push(file);
  }
  return written;
}
