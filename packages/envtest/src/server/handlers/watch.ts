/**
 * WATCH: the initial state as ADDED (RV unset or "0", or sendInitialEvents with its annotated BOOKMARK), or a strict
 * `> N` replay from history, then live events; selector enter/leave become ADDED/DELETED; bookmarks; a server-side
 * timeout; history that is gone is a 410 ERROR event followed by a close, as the real cacher does.
 */
import type { ServerResponse } from 'node:http';
import { groupVersion, storageResource } from '../../api/resource-type.js';
import { expired, tooLargeResourceVersion } from '../../api/status-error.js';
import { ResourceVersionExpiredError, ResourceVersionTooLargeError } from '../../storage/errors.js';
import { Store } from '../../storage/store.js';
import type { StoreEvent, StoredObject } from '../../storage/types.js';
import type { ApiState } from '../api-state.js';
import type { ListOptions } from '../list-options.js';
import { matchesSelectors } from '../list-options.js';
import type { CollectionTarget } from '../object-target.js';
import { present } from '../object-target.js';
import type { Representation } from '../representation.js';
import { renderObject } from '../representation.js';
import { WatchStream } from '../watch-stream.js';

export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

export function handleWatch(state: ApiState, res: ServerResponse, target: CollectionTarget, opts: ListOptions, rep: Representation): void {
  const { type, version } = target;
  const scope = { resource: storageResource(type), cluster: target.cluster, namespace: target.namespace };
  const store = state.store;
  const stream = new WatchStream(res, scope, (s) => state.watches.delete(s));
  state.watches.add(stream);
  stream.open();

  const injected = state.faults.watchFailures.shift();
  if (injected) {
    stream.send('ERROR', injected.toStatus());
    stream.end();
    return;
  }

  const annotate = state.options.logicalClusters;
  const send = (eventType: 'ADDED' | 'MODIFIED' | 'DELETED', obj: StoredObject, cluster: string): void =>
    stream.send(eventType, renderObject(rep, present(obj, type, version, annotate ? cluster : undefined), type, version));
  const bookmark = (initialEventsEnd: boolean): void => {
    const metadata: Record<string, unknown> = { resourceVersion: String(store.currentRv) };
    if (initialEventsEnd) metadata['annotations'] = { [INITIAL_EVENTS_END_ANNOTATION]: 'true' };
    stream.send('BOOKMARK', { kind: type.kind, apiVersion: groupVersion(type.group, version), metadata });
  };
  const deliver = (e: StoreEvent): void => {
    if (scope.cluster !== undefined && e.key.cluster !== scope.cluster) return;
    if (target.clusters && !target.clusters(e.key.cluster)) return;
    if (scope.namespace !== undefined && e.key.namespace !== scope.namespace) return;
    const now = e.type === 'DELETED' ? undefined : e.object;
    const nowMatches = now !== undefined && matchesSelectors(opts, now);
    const before = e.prev !== undefined && matchesSelectors(opts, e.prev);
    const cluster = e.key.cluster;
    if (e.type === 'DELETED') {
      if (before) send('DELETED', e.object, cluster);
    } else if (nowMatches) send(before ? 'MODIFIED' : 'ADDED', now, cluster);
    else if (before) send('DELETED', { ...e.prev, metadata: { ...e.prev.metadata, resourceVersion: String(e.rv) } }, cluster);
  };

  const rv = opts.resourceVersion === undefined ? undefined : Number(opts.resourceVersion);
  const initial = opts.sendInitialEvents ?? (rv === undefined || rv === 0);
  try {
    if (initial) {
      if (rv !== undefined && rv > store.currentRv) throw new ResourceVersionTooLargeError(rv, store.currentRv);
      for (const item of store.snapshot(scope).items) {
        const cluster = Store.clusterOfSortKey(item.sortKey);
        if ((!target.clusters || target.clusters(cluster)) && matchesSelectors(opts, item.object)) send('ADDED', item.object, cluster);
      }
      if (opts.sendInitialEvents === true && opts.allowWatchBookmarks) bookmark(true);
    } else if (rv !== undefined && rv !== 0) {
      for (const e of store.eventsAfter(scope, rv)) deliver(e);
    }
  } catch (err) {
    if (err instanceof ResourceVersionExpiredError) stream.send('ERROR', expired(err.message).toStatus());
    else if (err instanceof ResourceVersionTooLargeError)
      stream.send('ERROR', tooLargeResourceVersion(err.requested, err.current).toStatus());
    else throw err;
    stream.end();
    return;
  }
  // Replay and subscribe happen in the same tick, so no write can fall between them.
  stream.onEnd(store.subscribe(scope.resource, deliver));
  // What serves a mount went down (a kcp shard restarting): its watches break as a crashed server's do.
  const life = target.signal;
  if (life) {
    const cut = (): void => stream.abort();
    if (life.aborted) return cut();
    life.addEventListener('abort', cut, { once: true });
    stream.onEnd(() => life.removeEventListener('abort', cut));
  }

  // setTimeout fires at once for delays beyond 2^31-1 ms, so clamp absurd timeouts (~24 days).
  const timeoutMs = Math.min((opts.timeoutSeconds ?? state.options.defaultWatchTimeoutSeconds) * 1000, 2 ** 31 - 1);
  const deadline = setTimeout(() => {
    // A last bookmark lets the client resume from the newest revision instead of replaying.
    if (opts.allowWatchBookmarks) bookmark(false);
    stream.end();
  }, timeoutMs);
  stream.onEnd(() => clearTimeout(deadline));
  if (opts.allowWatchBookmarks) {
    const ticker = setInterval(() => bookmark(false), state.options.bookmarkIntervalMs);
    stream.onEnd(() => clearInterval(ticker));
  }
}
