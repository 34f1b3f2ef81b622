/**
 * `InitializingWorkspacesProvider`: every kcp workspace waiting for one WorkspaceType's initializer is a member, for
 * the controller that initializes it (kcp-dev/multicluster-provider's initializingworkspaces). It follows the
 * WorkspaceType's `status.virtualWorkspaces` URLs that are initializingworkspaces virtual workspaces (one per shard)
 * and watches LogicalClusters through each: every logical cluster listed there is a member, until the controller
 * removes its initializer from `status.initializers` and the workspace leaves the virtual workspace (disengaged).
 * That virtual workspace serves only LogicalClusters across workspaces, so each member reads through a cache of its
 * own at `<url>/clusters/<logical cluster>`.
 */
import type { Cluster, KubeObject, Logger, MetricsRecorder, ObjectKind } from '@multicluster-runtime/core';
import { ApiExportProvider, type KcpFleetSource } from './provider.js';

/** kcp's WorkspaceType kind: its status lists the virtual workspaces of its initializer. */
export const WORKSPACE_TYPE: ObjectKind = { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'WorkspaceType' };

/** kcp's LogicalCluster kind: one per workspace, named `cluster`, carrying `status.initializers`. */
export const LOGICAL_CLUSTER: ObjectKind = { apiVersion: 'core.kcp.io/v1alpha1', kind: 'LogicalCluster' };

/** Options of InitializingWorkspacesProvider. */
export interface InitializingWorkspacesProviderOptions {
  /** The WorkspaceType whose initializer the controller is. */
  workspaceTypeName: string;
  /** A kubeconfig for the workspace holding the WorkspaceType; its user reaches the virtual workspaces too. */
  config: Cluster['config'];
  /** How long a new member's cache may take to sync before the engagement is retried. Default 30 s. */
  waitCacheTimeoutMs?: number;
  /** How long a virtual workspace may take to answer its first LogicalCluster list before it is retried. Default 10 s. */
  endpointStartTimeoutMs?: number;
  /** Backoff between retries of failed endpoints and engagements. Defaults: 200 ms doubling to 30 s. */
  retry?: { initialMs?: number; maxMs?: number };
  /** Default: the manager's logger. */
  logger?: Logger;
  /** Default: the manager's metrics. */
  metrics?: MetricsRecorder;
}

/** A WorkspaceType's `status.virtualWorkspaces[].url` that are initializingworkspaces virtual workspaces. */
function initializingUrls(workspaceType: KubeObject | undefined): string[] {
  const vws = (workspaceType as { status?: { virtualWorkspaces?: { url?: unknown }[] } } | undefined)?.status?.virtualWorkspaces ?? [];
  return vws.map((v) => v.url).filter((u): u is string => typeof u === 'string' && u.includes('/initializingworkspaces/'));
}

const initializingSource: KcpFleetSource = {
  sliceKind: WORKSPACE_TYPE,
  urls: initializingUrls,
  memberKind: LOGICAL_CLUSTER,
  memberCaches: 'own',
  owner: 'kcp-initializingworkspaces',
};

/** kcp workspaces waiting for a WorkspaceType's initializer, as a fleet (see the module comment). */
export class InitializingWorkspacesProvider extends ApiExportProvider {
  constructor(options: InitializingWorkspacesProviderOptions) {
    const { workspaceTypeName, config, ...rest } = options;
    // Every LogicalCluster the virtual workspace shows is waiting for the initializer: all of them are members.
    super({ ...rest, endpointSliceName: workspaceTypeName, exportConfig: config, isReady: () => true }, initializingSource);
  }
}
