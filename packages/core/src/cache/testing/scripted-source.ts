/**
 * Test double for the watcher's source: answers each list and watch call with the next scripted step and records
 * the requests, so the state machine and the informer can be driven event by event without a server; and a handler
 * that records what it was told.
 */
import { ApiError } from '../../client/errors.js';
import type { ObjectList } from '../../client/types.js';
import type { KubeObject } from '../../object/types.js';
import type { ListRequest, ListWatcher, RawWatchEvent, WatchRequest } from '../list-watcher.js';
import type { ResourceEventHandler } from '../types.js';

export type ListStep = (req: ListRequest) => Promise<ObjectList>;
export type WatchStep = (req: WatchRequest) => Promise<AsyncIterable<RawWatchEvent>>;

export class ScriptedSource implements ListWatcher {
  readonly resource = 'v1, Kind=ConfigMap';
  readonly listCalls: Array<Omit<ListRequest, 'signal'>> = [];
  readonly watchCalls: Array<Omit<WatchRequest, 'signal'>> = [];
  constructor(
    readonly lists: ListStep[],
    readonly watches: WatchStep[],
  ) {}
  list(req: ListRequest): Promise<ObjectList> {
    const { signal: _s, ...rest } = req;
    this.listCalls.push(rest);
    const step = this.lists.shift();
    return step ? step(req) : hang(req.signal);
  }
  watch(req: WatchRequest): Promise<AsyncIterable<RawWatchEvent>> {
    const { signal: _s, ...rest } = req;
    this.watchCalls.push(rest);
    const step = this.watches.shift();
    return step ? step(req) : hang(req.signal);
  }
}

export const cm = (name: string, rv: string, data: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: 'ns', name, resourceVersion: rv },
  data,
});

export function page(items: KubeObject[], meta: { resourceVersion?: string; continue?: string }): ListStep {
  return async () => ({ apiVersion: 'v1', kind: 'ConfigMapList', metadata: meta, items });
}

export const fail =
  (err: unknown): ListStep & WatchStep =>
  async () => {
    throw err;
  };

export const httpError = (code: number, message = `HTTP ${code}`): ApiError =>
  new ApiError(code, { kind: 'Status', status: 'Failure', message, code });

/** A stream that yields `events`, then ends cleanly, stays open until aborted (`open`), or throws the given error. */
export function stream(events: RawWatchEvent[], end: 'close' | 'open' | Error = 'close'): WatchStep {
  return async (req) =>
    (async function* () {
      for (const e of events) yield e;
      if (end === 'open') await hang(req.signal);
      if (end instanceof Error) throw end;
    })();
}

/** A watch stream the test feeds by hand. */
export class WatchChannel {
  private readonly queue: Array<RawWatchEvent | { end: Error | undefined }> = [];
  private wake: (() => void) | undefined;
  push(event: RawWatchEvent): void {
    this.queue.push(event);
    this.wake?.();
  }
  close(err?: Error): void {
    this.queue.push({ end: err });
    this.wake?.();
  }
  step(): WatchStep {
    return async (req) => this.iterate(req.signal);
  }
  private async *iterate(signal: AbortSignal): AsyncGenerator<RawWatchEvent> {
    for (;;) {
      const next = this.queue.shift();
      if (next === undefined) {
        await Promise.race([new Promise<void>((resolve) => (this.wake = resolve)), hang(signal)]);
        continue;
      }
      if ('end' in next) {
        if (next.end) throw next.end;
        return;
      }
      yield next;
    }
  }
}

export function hang(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const abort = () => reject(new DOMException('aborted', 'AbortError'));
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
  });
}

/** Records handler calls as short strings (`add:a@1:initial`, `update:a@1->2`, `delete:a:unknown`). */
export function recorder(): { calls: string[]; handler: ResourceEventHandler } {
  const calls: string[] = [];
  return {
    calls,
    handler: {
      onAdd: (o, initial) => calls.push(`add:${o.metadata.name}@${o.metadata.resourceVersion}${initial ? ':initial' : ''}`),
      onUpdate: (a, b) => calls.push(`update:${b.metadata.name}@${a.metadata.resourceVersion}->${b.metadata.resourceVersion}`),
      onDelete: (o, unknown) => calls.push(`delete:${o.metadata.name}${unknown ? ':unknown' : ''}`),
    },
  };
}
