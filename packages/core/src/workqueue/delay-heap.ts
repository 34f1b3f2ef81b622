/**
 * Items waiting for their delay to pass, in a binary min-heap by ready time, so one timer (armed for the earliest
 * item) serves any number of delayed items. Holds each key once: adding a key again keeps the earlier ready time.
 */

export interface Delayed<T> {
  readonly key: string;
  readonly group: string;
  item: T;
  readyAt: number;
  /** Insertion order, so items ready at the same time come out in the order they were added. */
  seq: number;
  /** Position in the heap array, kept up to date for O(log n) updates. */
  index: number;
}

export class DelayHeap<T> {
  private readonly heap: Delayed<T>[] = [];
  private readonly byKey = new Map<string, Delayed<T>>();
  private nextSeq = 0;

  get size(): number {
    return this.heap.length;
  }

  /** The earliest ready time, or undefined if empty. */
  peekReadyAt(): number | undefined {
    return this.heap[0]?.readyAt;
  }

  /** Adds the item, or moves an already delayed equal item earlier if `readyAt` is earlier. */
  push(key: string, group: string, item: T, readyAt: number): void {
    const existing = this.byKey.get(key);
    if (existing) {
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        existing.item = item;
        this.up(existing.index);
      }
      return;
    }
    const entry: Delayed<T> = { key, group, item, readyAt, seq: this.nextSeq++, index: this.heap.length };
    this.heap.push(entry);
    this.byKey.set(key, entry);
    this.up(entry.index);
  }

  /** Removes and returns every item ready at `now`, earliest first. */
  popReady(now: number): T[] {
    const out: T[] = [];
    while (this.heap.length > 0 && this.heap[0]!.readyAt <= now) out.push(this.removeAt(0).item);
    return out;
  }

  /** Removes every item of `group`. */
  removeGroup(group: string): void {
    for (let i = this.heap.length - 1; i >= 0; i--) {
      if (this.heap[i]!.group === group) this.removeAt(i);
    }
  }

  clear(): void {
    this.heap.length = 0;
    this.byKey.clear();
  }

  private removeAt(i: number): Delayed<T> {
    const entry = this.heap[i]!;
    const last = this.heap.pop()!;
    this.byKey.delete(entry.key);
    if (last !== entry) {
      this.heap[i] = last;
      last.index = i;
      this.down(i);
      this.up(last.index);
    }
    return entry;
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < this.heap.length && this.less(l, min)) min = l;
      if (r < this.heap.length && this.less(r, min)) min = r;
      if (min === i) return;
      this.swap(i, min);
      i = min;
    }
  }

  private less(a: number, b: number): boolean {
    const ea = this.heap[a]!;
    const eb = this.heap[b]!;
    return ea.readyAt < eb.readyAt || (ea.readyAt === eb.readyAt && ea.seq < eb.seq);
  }

  private swap(a: number, b: number): void {
    const ea = this.heap[a]!;
    const eb = this.heap[b]!;
    this.heap[a] = eb;
    this.heap[b] = ea;
    ea.index = b;
    eb.index = a;
  }
}
