/**
 * The Channel source: generic events pushed by code (a webhook, a timer, another controller) rather than watched
 * from an API server, as controller-runtime's source.Channel. Events sent before the controller starts wait in a
 * bounded buffer; a full buffer refuses more with ChannelFullError instead of growing without bound.
 */
import type { EventHandler, GenericEvent, RequestQueue } from '../handler/types.js';
import { createLogger, type Logger } from '../log/logger.js';
import type { KubeObject, KubeObjectLike } from '../object/types.js';
import type { Predicate } from '../predicate/types.js';
import { ChannelFullError, SourceAlreadyStartedError } from './errors.js';
import type { Source } from './types.js';

/** Options of a channel source: its buffer size and logger. */
export interface ChannelOptions {
  /** Events kept while not started. Default 1024 (upstream's default buffer). */
  bufferSize?: number;
  logger?: Logger;
}

export class ChannelSource<T extends KubeObjectLike = KubeObject> implements Source {
  private readonly buffer: GenericEvent<T>[] = [];
  private readonly capacity: number;
  private readonly log: Logger;
  private queue: RequestQueue | undefined;
  private state: 'new' | 'running' | 'stopped' = 'new';

  constructor(
    private readonly handler: EventHandler<T>,
    private readonly predicates: readonly Predicate<T>[] = [],
    options: ChannelOptions = {},
  ) {
    this.capacity = options.bufferSize ?? 1024;
    this.log = options.logger ?? createLogger({ fields: { component: 'source', source: 'channel' } });
  }

  /** Delivers an event now if running, else buffers it. Throws ChannelFullError when the buffer is full. */
  send(event: GenericEvent<T>): void {
    if (this.state === 'running') return this.deliver(event);
    if (this.buffer.length >= this.capacity) throw new ChannelFullError(this.capacity);
    this.buffer.push(event);
  }

  start(signal: AbortSignal, queue: RequestQueue): Promise<void> {
    if (this.state !== 'new') return Promise.reject(new SourceAlreadyStartedError('channel'));
    if (signal.aborted) {
      this.state = 'stopped';
      return Promise.resolve();
    }
    this.queue = queue;
    this.state = 'running';
    signal.addEventListener(
      'abort',
      () => {
        this.state = 'stopped';
        this.queue = undefined;
      },
      { once: true },
    );
    // deliver() never throws: predicate and handler failures are logged there.
    for (const event of this.buffer.splice(0)) this.deliver(event);
    return Promise.resolve();
  }

  /** A channel has no initial state to wait for. */
  waitForSync(): Promise<boolean> {
    return Promise.resolve(true);
  }

  private deliver(event: GenericEvent<T>): void {
    const queue = this.queue;
    if (!queue || !this.handler.generic) return;
    const fields = {
      cluster: event.clusterName,
      namespace: event.object.metadata?.namespace ?? '',
      name: event.object.metadata?.name ?? '',
    };
    try {
      if (!this.predicates.every((p) => p.generic?.(event) ?? true)) return;
    } catch (err) {
      this.log.error('predicate threw on generic event; event dropped', err, fields);
      return;
    }
    try {
      this.handler.generic(event, queue);
    } catch (err) {
      this.log.error('event handler threw on generic event', err, fields);
    }
  }
}

/** A source fed by `send()`: each generic event that passes every predicate goes to `handler.generic`. */
export function channel<T extends KubeObjectLike = KubeObject>(handler: EventHandler<T>, ...predicates: Predicate<T>[]): ChannelSource<T> {
  return new ChannelSource<T>(handler, predicates);
}
