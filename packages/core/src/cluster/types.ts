/** The Cluster contract: everything a controller needs to talk to one cluster of the fleet. */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Cache, FieldIndexer } from '../cache/types.js';
import type { Client, Reader, RESTMapper } from '../client/types.js';
import type { EventRecorder } from '../events/types.js';
import type { ClusterName } from '../fleet/cluster-name.js';

/**
 * One Kubernetes cluster as a controller sees it: a cached client, a direct reader, its cache, REST mapper and event
 * recorder. The manager's local cluster and every engaged member are Clusters; a provider makes them.
 */
export interface Cluster {
  /** The name the cluster was created with (informational; a provider may engage it under a prefixed name). */
  readonly name: ClusterName;
  /** The connection details. Treat as read-only. */
  readonly config: KubeConfig;
  /**
   * The client controllers use: `get` and `list` read from the cache (the kind's informer is started on first read and
   * the read waits for its sync; the objects returned are copies the caller may change), writes go to the API server.
   * Kinds can be read from the server instead (`client: { cache: { disableFor } }` in the cluster's options).
   */
  readonly client: Client;
  /** Reads straight from the API server, for the rare read that must not be stale (controller-runtime's API reader). */
  readonly apiReader: Reader;
  /** Shared informers and the reads they serve. */
  readonly cache: Cache;
  /** Field indexes on the cache (the same object as `cache`). */
  readonly fieldIndexer: FieldIndexer;
  /** Kind ⇄ resource mapping from discovery. */
  readonly restMapper: RESTMapper;
  /**
   * An event recorder writing events.k8s.io/v1 Events into this cluster (the one the regarding object lives in) under
   * `reportingController`. Recording never blocks; pending events are written when the cluster stops (disengage).
   */
  getEventRecorderFor(reportingController: string): EventRecorder;
  /** Runs the cache until `signal` aborts, then stops every informer and closes every connection. */
  start(signal: AbortSignal): Promise<void>;
  /** Resolves true once every informer started so far has synced, false if `signal` aborts first. */
  waitForCacheSync(signal: AbortSignal): Promise<boolean>;
}
