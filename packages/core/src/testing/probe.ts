/**
 * The suite's eyes inside the manager: an Aware runnable that records every engagement the manager hands its
 * runnables, so a case can see a cluster engaged, its signal aborted on removal, and the instance a re-engagement
 * brought — what a controller added to the same manager would see.
 */
import type { Cluster } from '../cluster/types.js';
import { whenAborted } from '../signal/wait.js';
import type { AwareRunnable } from '../manager/types.js';
import type { ClusterName } from '../fleet/cluster-name.js';

export interface Engagement {
  readonly name: ClusterName;
  readonly cluster: Cluster;
  readonly signal: AbortSignal;
}

export class EngagementProbe implements AwareRunnable {
  readonly name = 'acceptance-probe';
  readonly needLeaderElection = false;
  readonly engagements: Engagement[] = [];

  start(signal: AbortSignal): Promise<void> {
    return whenAborted(signal);
  }

  engage(signal: AbortSignal, name: ClusterName, cluster: Cluster): Promise<void> {
    this.engagements.push({ name, cluster, signal });
    return Promise.resolve();
  }

  /** The live engagement of `name`, if any. */
  live(name: ClusterName): Engagement | undefined {
    return this.engagements.findLast((e) => e.name === name && !e.signal.aborted);
  }

  /** Engagements whose signal has not aborted. */
  allLive(): Engagement[] {
    return this.engagements.filter((e) => !e.signal.aborted);
  }
}
