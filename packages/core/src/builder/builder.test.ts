import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../log/logger.js';
import { newManager } from '../manager/manager.js';
import { NopProvider } from '../providers/nop.js';
import { ScriptedCluster } from '../providers/clusters/scripted-cluster.test-util.js';
import type { Predicate } from '../predicate/types.js';
import { controllerManagedBy } from './builder.js';
import {
  AlreadyBuiltError,
  DuplicateControllerNameError,
  ForCalledTwiceError,
  MissingNameError,
  MissingReconcilerError,
  NoWatchesError,
  OwnsWithoutForError,
  WatchEngagesNothingError,
} from './errors.js';
import { mergeWatchOptions, resolveEngagement } from './options.js';

const configMaps = { apiVersion: 'v1', kind: 'ConfigMap' };
const secrets = { apiVersion: 'v1', kind: 'Secret' };
const reconcile = async () => {};

function mgr(withProvider = false) {
  return newManager(new KubeConfig(), withProvider ? new NopProvider() : undefined, {
    localCluster: new ScriptedCluster('local'),
    logger: silentLogger,
  });
}

describe('builder errors', () => {
  it('rejects for() twice, naming both kinds', () => {
    const b = controllerManagedBy(mgr()).for(configMaps).for(secrets);
    expect(() => b.complete(reconcile)).toThrow(ForCalledTwiceError);
    expect(() => b.complete(reconcile)).toThrow(/v1, Kind=ConfigMap.*v1, Kind=Secret/);
  });

  it('needs a name from for() or named()', () => {
    const handler = { create: () => {} };
    expect(() => controllerManagedBy(mgr()).watches(secrets, handler).complete(reconcile)).toThrow(MissingNameError);
    expect(controllerManagedBy(mgr()).named('by-name').watches(secrets, handler).build(reconcile).name).toBe('by-name');
  });

  it('rejects owns() without for(), no watches at all, and a missing reconciler', () => {
    expect(() => controllerManagedBy(mgr()).named('x').owns(secrets).complete(reconcile)).toThrow(OwnsWithoutForError);
    expect(() => controllerManagedBy(mgr()).named('x').complete(reconcile)).toThrow(NoWatchesError);
    expect(() =>
      controllerManagedBy(mgr())
        .for(configMaps)
        .complete(undefined as never),
    ).toThrow(MissingReconcilerError);
  });

  it('rejects a watch that engages no cluster, and building twice', () => {
    expect(() => controllerManagedBy(mgr()).for(configMaps, { engageWithLocalCluster: false }).complete(reconcile)).toThrow(
      WatchEngagesNothingError,
    );
    const b = controllerManagedBy(mgr()).for(configMaps);
    b.complete(reconcile);
    expect(() => b.complete(reconcile)).toThrow(AlreadyBuiltError);
  });

  it('names the controller after the for() kind in lower case, and refuses a second controller of that name', () => {
    const m = mgr();
    const c = controllerManagedBy(m).for(configMaps).build({ reconcile });
    expect(c.name).toBe('configmap');
    expect(() => controllerManagedBy(m).for(configMaps).complete(reconcile)).toThrow(DuplicateControllerNameError);
    expect(controllerManagedBy(m).named('configmap-2').for(configMaps).build(reconcile).name).toBe('configmap-2');
    expect(controllerManagedBy(mgr()).for(configMaps).build(reconcile).name).toBe('configmap');
  });
});

describe('engage options', () => {
  it('merges option objects field by field, later fields winning and predicates adding up (upstream #93)', () => {
    const p1: Predicate = { create: () => true };
    const p2: Predicate = { update: () => true };
    const filter = () => true;
    const merged = mergeWatchOptions([
      { engageWithLocalCluster: true, predicates: [p1] },
      { engageWithProviderClusters: true, clusterFilter: filter },
      { predicates: [p2], engageWithLocalCluster: undefined },
    ]);
    expect(merged).toEqual({ engageWithLocalCluster: true, engageWithProviderClusters: true, clusterFilter: filter, predicates: [p1, p2] });
  });

  it('defaults to the local cluster without a provider and to provider clusters with one', () => {
    expect(resolveEngagement({}, false)).toEqual({ local: true, providerClusters: false });
    expect(resolveEngagement({}, true)).toEqual({ local: false, providerClusters: true });
    expect(resolveEngagement({ engageWithLocalCluster: true }, true)).toEqual({ local: true, providerClusters: true });
  });

  it('builds a provider-only controller when a provider is present', () => {
    const c = controllerManagedBy(mgr(true)).for(configMaps).build(reconcile);
    expect(c.name).toBe('configmap');
  });
});
