/**
 * One endpoint's single connection pool, seen under a path prefix: `/clusters/*` for the shared wildcard cache and
 * discovery, `/clusters/<lc>` for one logical cluster's client. Every logical cluster of an endpoint thus shares one
 * pool instead of opening its own.
 */
import type { Transport, TransportRequest, TransportWatchRequest, WatchEvent } from '@multicluster-runtime/core/client';

export interface PrefixedTransport {
  request<T>(req: TransportRequest): Promise<T>;
  watch(req: TransportWatchRequest): Promise<AsyncIterable<WatchEvent>>;
}

export function prefixedTransport(transport: Transport, prefix: string): PrefixedTransport {
  return {
    request: <T>(req: TransportRequest) => transport.request<T>({ ...req, path: prefix + req.path }),
    watch: (req: TransportWatchRequest) => transport.watch({ ...req, path: prefix + req.path }),
  };
}
