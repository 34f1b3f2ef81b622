/**
 * The two calls a watcher makes, kept apart from HTTP so the state machine can be driven by any source (the API
 * server through `Transport`, a kcp virtual workspace, a test script).
 */
import type { ObjectList } from '../client/types.js';
import type { KubeObject } from '../object/types.js';

/** One event of a watch stream as the server sends it. */
export interface RawWatchEvent {
  type: string;
  object: unknown;
}

/** One list call of a ListWatcher: a page size and the continue token of the next page. */
export interface ListRequest {
  /** Page size. */
  limit: number;
  /** Continue token of the previous page; absent for the first page. */
  continue?: string;
  signal: AbortSignal;
}

/** One watch call of a ListWatcher: from which resourceVersion, for how long, until `signal` aborts. */
export interface WatchRequest {
  /** Deliver changes after this resourceVersion (never the initial state). */
  resourceVersion: string;
  /** Ask the server to end the stream cleanly after this long. */
  timeoutSeconds: number;
  signal: AbortSignal;
}

/** Lists and watches one resource (client-go's ListerWatcher): what an informer is built on. */
export interface ListWatcher {
  /** Names what is listed, for errors and logs (e.g. `v1, Kind=ConfigMap`). */
  readonly resource: string;
  /**
   * One page of a list. Items carry `apiVersion` and `kind`. Rejects with the client's ApiError on a non-2xx
   * answer (410 when a continue token expired).
   */
  list(req: ListRequest): Promise<ObjectList<KubeObject>>;
  /**
   * Opens a watch with bookmarks; resolves once the server accepted it. Iterating ends when the server closes the
   * stream and throws if the connection breaks. Aborting `signal` ends it.
   */
  watch(req: WatchRequest): Promise<AsyncIterable<RawWatchEvent>>;
  /**
   * Whether the server answers, when the source knows (a Transport does): a watcher backing off from a server that
   * stopped answering retries as soon as it answers again instead of after the whole delay.
   */
  readonly reachability?: ServerReachability;
}

/** What a retry loop needs to know of a server's reachability (client/reachability.ts implements it). */
export interface ServerReachability {
  /** True after a request failed without an answer and before the next answer. */
  readonly isDown: boolean;
  /** Resolves true when the server answers again, false when `signal` aborts first. */
  whenAnswering(signal: AbortSignal): Promise<boolean>;
}
