/**
 * Metric values kept in plain maps, grouped by cluster, and handed to prom-client only when the registry is collected
 * (a scrape). The runtime's hot paths (an item queued or taken, a reconcile begun or done) then cost two map lookups
 * instead of prom-client's label validation and label hashing on every call, and a cluster's series go with one
 * delete. Counters and gauges fill a prom-client metric from its collect hook; a histogram cannot be filled through
 * prom-client's API (observations only), so {@link HistogramTally} registers itself and writes the exposition.
 */
import { Counter, Gauge, type Metric, type Registry } from 'prom-client';

type Labels = Record<string, string>;

interface Cell {
  labels: Labels;
  value: number;
}

/** What a tallied metric is: its prom-client configuration, and how a cell's labels are made from its keys. */
export interface TallyOptions {
  name: string;
  help: string;
  labelNames: readonly string[];
  registers: Registry[];
  /** The labels of the series `key` of `group` (made once, when the series first appears). */
  labels: (group: string, key: string) => Labels;
}

/**
 * The series of one counter or gauge, grouped (by cluster, so that one can be dropped at once) and keyed within a
 * group by the values of the other labels.
 */
export class Tally {
  private readonly groups = new Map<string, Map<string, Cell>>();
  private readonly labelsOf: TallyOptions['labels'];

  private constructor(options: TallyOptions, create: (collect: () => void) => Counter | Gauge) {
    this.labelsOf = options.labels;
    const metric = create(() => {
      clearSeries();
      for (const cells of this.groups.values()) {
        for (const cell of cells.values()) {
          if (metric instanceof Gauge) metric.set(cell.labels, cell.value);
          else metric.inc(cell.labels, cell.value);
        }
      }
    });
    const clearSeries = metric.reset.bind(metric);
    // The registry's resetMetrics() resets the tallied values too, as it does every other metric.
    metric.reset = () => {
      this.groups.clear();
      clearSeries();
    };
  }

  /** A counter: `add` only. */
  static counter(options: TallyOptions): Tally {
    return new Tally(options, (collect) => new Counter({ ...config(options), collect }));
  }

  /** A gauge: `set`, or `add` a delta. */
  static gauge(options: TallyOptions): Tally {
    return new Tally(options, (collect) => new Gauge({ ...config(options), collect }));
  }

  add(group: string, key: string, delta: number): void {
    this.cell(group, key).value += delta;
  }

  set(group: string, key: string, value: number): void {
    this.cell(group, key).value = value;
  }

  /** Drops every series of `group`. */
  forget(group: string): void {
    this.groups.delete(group);
  }

  private cell(group: string, key: string): Cell {
    let cells = this.groups.get(group);
    if (!cells) this.groups.set(group, (cells = new Map<string, Cell>()));
    let cell = cells.get(key);
    if (!cell) cells.set(key, (cell = { labels: this.labelsOf(group, key), value: 0 }));
    return cell;
  }
}

function config(options: TallyOptions): { name: string; help: string; labelNames: string[]; registers: Registry[] } {
  return { name: options.name, help: options.help, labelNames: [...options.labelNames], registers: options.registers };
}

interface HistogramCell {
  labels: Labels;
  /** Observations per bucket (not cumulative); the last one is +Inf. */
  counts: number[];
  sum: number;
  count: number;
}

type ExposedValue = { value: number; labels: Record<string, string | number>; metricName: string };

/** A histogram's series, grouped and keyed like {@link Tally}'s, exposed in prom-client's own shape. */
export class HistogramTally {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly groups = new Map<string, Map<string, HistogramCell>>();
  private readonly labelsOf: TallyOptions['labels'];
  private readonly bounds: readonly number[];

  constructor(options: TallyOptions & { buckets: readonly number[] }) {
    this.name = options.name;
    this.help = options.help;
    this.labelsOf = options.labels;
    this.bounds = [...options.buckets].sort((a, b) => a - b);
    // The registry needs name, help, type, aggregator, get() and reset(); prom-client types it as its own classes.
    for (const registry of options.registers) registry.registerMetric(this as unknown as Metric);
  }

  observe(group: string, key: string, value: number): void {
    let cells = this.groups.get(group);
    if (!cells) this.groups.set(group, (cells = new Map<string, HistogramCell>()));
    let cell = cells.get(key);
    if (!cell) {
      cell = { labels: this.labelsOf(group, key), counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 };
      cells.set(key, cell);
    }
    let bucket = 0;
    while (bucket < this.bounds.length && value > this.bounds[bucket]!) bucket++;
    cell.counts[bucket]!++;
    cell.sum += value;
    cell.count++;
  }

  /** Drops every series of `group`. */
  forget(group: string): void {
    this.groups.delete(group);
  }

  /** Called by the registry's resetMetrics(). */
  reset(): void {
    this.groups.clear();
  }

  /** The series as prom-client's Histogram reports them: cumulative `_bucket`s with `le`, then `_sum` and `_count`. */
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: ExposedValue[] }> {
    const values: ExposedValue[] = [];
    for (const cells of this.groups.values()) {
      for (const cell of cells.values()) {
        let cumulative = 0;
        this.bounds.forEach((le, i) => {
          cumulative += cell.counts[i]!;
          values.push({ value: cumulative, labels: { le, ...cell.labels }, metricName: `${this.name}_bucket` });
        });
        values.push({ value: cell.count, labels: { le: '+Inf', ...cell.labels }, metricName: `${this.name}_bucket` });
        values.push({ value: cell.sum, labels: cell.labels, metricName: `${this.name}_sum` });
        values.push({ value: cell.count, labels: cell.labels, metricName: `${this.name}_count` });
      }
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}
