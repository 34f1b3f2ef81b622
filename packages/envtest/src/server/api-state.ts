/**
 * Everything one API server keeps across stop()/restart(): storage, served resources, tokens, open watches, fault
 * switches and counters. The network side (api-server.ts) can come and go around it.
 */
import { setMaxListeners } from 'node:events';
import { ResourceRegistry } from '../api/resource-registry.js';
import type { StatusError } from '../api/status-error.js';
import { Authenticator } from '../auth/authenticator.js';
import type { Authorizer } from '../auth/authorizer.js';
import { Store } from '../storage/store.js';
import type { ResolvedOptions } from './options.js';
import type { WatchStream } from './watch-stream.js';
import { tokenRequestAction } from './token-request.js';
import { ActionTable } from './action-table.js';

export class ApiState {
  readonly store: Store;
  readonly registry = new ResourceRegistry();
  /** Subresources answered by code: serviceaccounts/token, and the options' actions. */
  readonly actions = new ActionTable();
  readonly auth = new Authenticator();
  readonly watches = new Set<WatchStream>();
  readonly faults = { watchFailures: [] as StatusError[], latencyMs: 0 };
  readonly counters = { connections: 0, requests: 0, lists: 0 };
  authorizer: Authorizer | undefined;
  /** Logical clusters whose system namespaces exist. */
  readonly seededClusters = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private requests = requestsController();
  private readonly disposers: (() => void)[] = [];
  private disposed = false;

  constructor(readonly options: ResolvedOptions) {
    this.store = new Store({ historySize: options.historySize });
    for (const [token, user] of Object.entries(options.tokens)) this.auth.addToken(token, user);
    this.authorizer = options.authorizer;
    this.actions.add(tokenRequestAction(this.auth));
    for (const action of options.actions) this.actions.add(action);
  }

  /** A timer that dispose() cancels, so a closed server leaves nothing scheduled. */
  schedule(fn: () => void, ms: number): void {
    if (this.disposed) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  onDispose(fn: () => void): void {
    this.disposers.push(fn);
  }

  /** Aborted when the server stops, so requests waiting (injected latency) give up instead of holding timers. */
  get requestSignal(): AbortSignal {
    return this.requests.signal;
  }

  abortRequests(): void {
    this.requests.abort();
    this.requests = requestsController();
  }

  /** Ends every watch: cleanly for shutdown, abruptly for the dropWatches fault. */
  endWatches(mode: 'end' | 'abort'): void {
    for (const w of [...this.watches]) {
      if (mode === 'end') w.end();
      else w.abort();
    }
  }

  dispose(): void {
    this.disposed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const fn of this.disposers.splice(0)) fn();
    this.endWatches('end');
    this.requests.abort();
  }
}

/**
 * Every request held by injected latency listens on this signal, so there are as many listeners as such requests;
 * Node's default warning at 11 would report load, not a leak.
 */
function requestsController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
