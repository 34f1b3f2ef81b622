/**
 * What a provider author hands the acceptance suite: how to start a fleet for one test case, build the provider, and
 * add, remove and rotate a member in the provider's source of truth (a Secret, a file, a Cluster object, a kind
 * cluster, a workspace binding, ...). Capabilities a provider lacks are left out and their cases are skipped, so a
 * provider of a fixed fleet runs the same suite.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '../log/logger.js';
import type { ClusterName } from '../fleet/cluster-name.js';
import type { Provider } from '../multicluster/types.js';
import type { ObjectKind } from '../object/types.js';
import { AcceptanceFixtureError } from './errors.js';

/** A fleet member as its source of truth describes it. */
export interface AcceptanceMember {
  /** The name the provider engages it under. */
  readonly name: ClusterName;
  /** Admin access to the member's API server; the suite writes its marker objects with it. */
  readonly kubeconfig: KubeConfig;
  /**
   * Namespace of this member's marker objects, for members that are namespaces of one server (each reads and writes
   * only its own). Default: the fixture's `markerNamespace`.
   */
  readonly markerNamespace?: string;
}

/** One fleet, started for one test case and closed after it. */
export interface AcceptanceFleet {
  /** The manager's local (host) cluster; providers that read a source of truth from it find it there. */
  readonly host: KubeConfig;
  /** Builds the provider under test. Called once per case, after the members added before start. */
  provider(): Provider | Promise<Provider>;
  /** Adds a new member to the source of truth; resolves once it is written there (not once engaged). */
  addMember(): Promise<AcceptanceMember>;
  /** False if members can only be added before the provider starts (a fixed fleet). Default true. */
  readonly addsAfterStart?: boolean;
  /** Removes a member from the source of truth. Leave out (with restoreMember) for a fixed fleet. */
  removeMember?(member: AcceptanceMember): Promise<void>;
  /** Puts a removed member back under the same name. Required with removeMember. */
  restoreMember?(member: AcceptanceMember): Promise<void>;
  /**
   * Changes how the provider reaches a member (new credentials, a new endpoint) under the same name; resolves with
   * the member as reachable now. Leave out if the source of truth has no connection details to change.
   */
  rotateMember?(member: AcceptanceMember): Promise<AcceptanceMember>;
  /** Stops whatever setup started (servers, files). Called after the manager stopped, also when a case failed. */
  close(): Promise<void>;
}

/** What a provider author gives describeProviderAcceptance: its name, how to set up a fleet and the provider over it, the marker objects' kind and namespace, and wait limits. */
export interface ProviderAcceptanceFixture {
  /** Names the suite in the test report. */
  readonly name: string;
  /** Starts a fresh fleet for one case. */
  setup(): Promise<AcceptanceFleet>;
  /**
   * Namespaced kind of the marker objects the suite writes into members and reads back through engaged clusters
   * (default ConfigMap). Set it when members do not serve ConfigMaps as the provider sees them, e.g. a kcp APIExport
   * whose virtual workspace serves only the exported resources.
   */
  readonly markerKind?: ObjectKind;
  /** Namespace of the marker objects; it must exist in every member. Default `default`. */
  readonly markerNamespace?: string;
  /** Longest wait for any one condition (engaged, disengaged, indexed, closed). Default 30 s. */
  readonly waitTimeoutMs?: number;
  /** The manager's logger (default: silent). */
  readonly logger?: Logger;
}

/** Refuses a fixture the suite cannot run, naming what is wrong. */
export function validateFixture(fixture: ProviderAcceptanceFixture): void {
  if (typeof fixture !== 'object' || fixture === null) throw new AcceptanceFixtureError('the fixture must be an object');
  if (typeof fixture.name !== 'string' || fixture.name === '') throw new AcceptanceFixtureError('fixture.name must be a non-empty string');
  if (typeof fixture.setup !== 'function') throw new AcceptanceFixtureError('fixture.setup must be a function returning the fleet');
  const timeout = fixture.waitTimeoutMs;
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout > 0)) {
    throw new AcceptanceFixtureError(`fixture.waitTimeoutMs must be a positive number of milliseconds; got ${String(timeout)}`);
  }
}

/** Refuses a fleet whose capabilities do not fit together. */
export function validateFleet(fleet: AcceptanceFleet): void {
  for (const method of ['provider', 'addMember', 'close'] as const) {
    if (typeof fleet?.[method] !== 'function') throw new AcceptanceFixtureError(`the fleet from setup() has no ${method}() method`);
  }
  if (!(fleet.host && typeof fleet.host.getCurrentCluster === 'function')) {
    throw new AcceptanceFixtureError('the fleet from setup() has no host KubeConfig');
  }
  if ((fleet.removeMember === undefined) !== (fleet.restoreMember === undefined)) {
    throw new AcceptanceFixtureError('removeMember and restoreMember come together: the suite removes a member, then restores it');
  }
}
