/**
 * LIST: resourceVersion semantics (latest, not-older-than, exact from history), selectors, and limit/continue pages
 * that all read the snapshot of the first page.
 */
import type { ServerResponse } from 'node:http';
import { decodeContinue, encodeContinue } from '../../api/continue-token.js';
import { groupVersion, storageResource } from '../../api/resource-type.js';
import { StatusError, badRequest, expired, tooLargeResourceVersion } from '../../api/status-error.js';
import { ResourceVersionExpiredError, ResourceVersionTooLargeError } from '../../storage/errors.js';
import type { Snapshot } from '../../storage/store.js';
import { Store } from '../../storage/store.js';
import type { ApiState } from '../api-state.js';
import type { ListOptions } from '../list-options.js';
import { matchesSelectors } from '../list-options.js';
import type { CollectionTarget } from '../object-target.js';
import { present } from '../object-target.js';
import type { Representation } from '../representation.js';
import { contentTypeOf, renderList } from '../representation.js';
import { writeJson } from '../respond.js';

type SnapshotItem = Snapshot['items'][number];

const CONTINUE_EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

export function handleList(state: ApiState, res: ServerResponse, target: CollectionTarget, opts: ListOptions, rep: Representation): void {
  const scope = { resource: storageResource(target.type), cluster: target.cluster, namespace: target.namespace };
  const store = state.store;
  let snapshot: Snapshot;
  let start = '';
  try {
    if (opts.continueToken) {
      if (opts.resourceVersion !== undefined && opts.resourceVersion !== '0')
        throw badRequest('specifying resource version is not allowed when using continue');
      const token = decodeContinue(opts.continueToken);
      start = token.start;
      try {
        // rv <= 0 (from an expired-token Status) continues from the latest state, knowingly inconsistent.
        snapshot = token.rv > 0 ? store.snapshotAt(scope, token.rv) : store.snapshot(scope);
      } catch (err) {
        if (err instanceof ResourceVersionExpiredError) throw expiredContinue(token.start);
        throw err;
      }
    } else {
      const rv = opts.resourceVersion === undefined ? undefined : Number(opts.resourceVersion);
      if (rv !== undefined && rv > store.currentRv) throw new ResourceVersionTooLargeError(rv, store.currentRv);
      const exact =
        rv !== undefined && rv !== 0 && (opts.resourceVersionMatch === 'Exact' || (opts.resourceVersionMatch === '' && opts.limit > 0));
      snapshot = exact ? store.snapshotAt(scope, rv) : store.snapshot(scope);
    }
  } catch (err) {
    if (err instanceof ResourceVersionExpiredError) throw expired('The resourceVersion for the provided list is too old.');
    if (err instanceof ResourceVersionTooLargeError) throw tooLargeResourceVersion(err.requested, err.current);
    throw err;
  }

  const shown = target.clusters;
  const matches = (i: SnapshotItem) => (!shown || shown(Store.clusterOfSortKey(i.sortKey))) && matchesSelectors(opts, i.object);
  // Items are sorted: a page starts where its continue token points and reads only as far as it needs.
  const items = snapshot.items;
  let next = firstAtOrAfter(items, start);
  const page: SnapshotItem[] = [];
  for (; next < items.length && (opts.limit <= 0 || page.length < opts.limit); next++) if (matches(items[next]!)) page.push(items[next]!);
  // How many more match: all of the rest when nothing filters; else only whether one does (no count is given then).
  const unfiltered = opts.labelSelector.empty && opts.fieldSelector.empty;
  let remaining = unfiltered && !shown ? items.length - next : 0;
  for (let i = next; i < items.length && (unfiltered ? shown !== undefined : remaining === 0); i++) if (matches(items[i]!)) remaining++;
  const metadata: Record<string, unknown> = { resourceVersion: String(snapshot.rv) };
  if (remaining > 0) {
    metadata['continue'] = encodeContinue({ rv: snapshot.rv, start: `${page[page.length - 1]!.sortKey}\u0000` });
    if (unfiltered) metadata['remainingItemCount'] = remaining;
  }
  const list = {
    kind: target.type.listKind,
    apiVersion: groupVersion(target.type.group, target.version),
    metadata,
    items: page.map((i) =>
      present(i.object, target.type, target.version, state.options.logicalClusters ? Store.clusterOfSortKey(i.sortKey) : undefined),
    ),
  };
  writeJson(res, 200, renderList(rep, list, target.type, target.version), contentTypeOf(rep, true));
}

function expiredContinue(start: string): StatusError {
  const err = expired(CONTINUE_EXPIRED);
  // Like etcd3's handleCompactedErrorForPaging: a token with rv -1 lets the client continue inconsistently if it wants.
  return new StatusError(err.code, err.reason, err.message, undefined, { continue: encodeContinue({ rv: -1, start }) });
}

/** The index of the first item whose sort key is at or after `start` (items are sorted by sort key). */
function firstAtOrAfter(items: readonly SnapshotItem[], start: string): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (items[mid]!.sortKey < start) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
