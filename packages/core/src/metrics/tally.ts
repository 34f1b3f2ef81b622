/**
 * Counter and gauge values kept in plain maps and written into their prom-client metric only when it is collected (a
 * scrape). The runtime's hot paths (an item queued or taken, a reconcile begun or done) then cost two map lookups
 * instead of prom-client's label validation and hashing on every call, and a cluster's series go with one delete.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

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
      metric.reset();
      for (const cells of this.groups.values()) {
        for (const cell of cells.values()) {
          if (metric instanceof Gauge) metric.set(cell.labels, cell.value);
          else metric.inc(cell.labels, cell.value);
        }
      }
    });
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
