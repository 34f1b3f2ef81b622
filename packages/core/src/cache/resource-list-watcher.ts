/**
 * Lists and watches one resource of an API server through the client's Transport: the HTTP half of the watcher.
 */
import { resourcePath } from '../client/paths.js';
import type { ObjectList, ResourceMapping } from '../client/types.js';
import { formatApiVersion } from '../object/gvk.js';
import type { KubeObject } from '../object/types.js';
import type { ListRequest, ListWatcher, RawWatchEvent, WatchRequest } from './list-watcher.js';

type Query = Record<string, string | number | boolean | undefined>;

/** The part of the client's `Transport` the cache needs; the real Transport satisfies it. */
export interface CacheTransport {
  request<T>(req: { method: 'GET'; path: string; query?: Query; signal?: AbortSignal }): Promise<T>;
  watch(req: { path: string; query?: Query; signal: AbortSignal }): Promise<AsyncIterable<RawWatchEvent>>;
}

export interface ResourceListWatchOptions {
  /** Watch one namespace only; default all namespaces (or cluster-scoped). */
  namespace?: string;
  /** Server-side label selector, API syntax. */
  labelSelector?: string;
  /** Server-side field selector, API syntax. */
  fieldSelector?: string;
}

/** A {@link ListWatcher} for `mapping` on the server behind `transport`. */
export function resourceListWatcher(
  transport: CacheTransport,
  mapping: ResourceMapping,
  options: ResourceListWatchOptions = {},
): ListWatcher {
  const path = resourcePath(mapping, options.namespace);
  const apiVersion = formatApiVersion(mapping.group, mapping.version);
  const selectors: Query = { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector };
  return {
    resource: `${apiVersion}, Kind=${mapping.kind}`,
    async list(req: ListRequest): Promise<ObjectList<KubeObject>> {
      const list = await transport.request<ObjectList<KubeObject>>({
        method: 'GET',
        path,
        query: { ...selectors, limit: req.limit, continue: req.continue },
        signal: req.signal,
      });
      // Items of a list omit apiVersion and kind; fill them so listed and watched objects have one shape.
      if (Array.isArray(list?.items)) list.items = list.items.map((item) => ({ apiVersion, kind: mapping.kind, ...item }));
      return list;
    },
    watch(req: WatchRequest): Promise<AsyncIterable<RawWatchEvent>> {
      return transport.watch({
        path,
        query: {
          ...selectors,
          watch: true,
          allowWatchBookmarks: true,
          resourceVersion: req.resourceVersion,
          timeoutSeconds: req.timeoutSeconds,
        },
        signal: req.signal,
      });
    },
  };
}
