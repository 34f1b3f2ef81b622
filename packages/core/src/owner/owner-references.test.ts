/** Owner and controller references in memory: upserts, the checks with their errors, and removal. */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../object/types.js';
import { AlreadyOwnedError, ClusterScopedDependentError, CrossNamespaceOwnerError, IncompleteOwnerError } from './errors.js';
import {
  getControllerOf,
  hasControllerReference,
  hasOwnerReference,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
} from './owner-references.js';

const deployment = (name = 'web', namespace: string | undefined = 'ns', uid = `uid-${name}`): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, uid, ...(namespace !== undefined ? { namespace } : {}) },
});
const configMap = (namespace?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cfg', ...(namespace ? { namespace } : {}) },
});

describe('setControllerReference', () => {
  it('adds a controller reference with blockOwnerDeletion and replaces it on a second call', () => {
    const child = configMap('ns');
    setControllerReference(deployment(), child);
    expect(child.metadata.ownerReferences).toEqual([
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'uid-web', controller: true, blockOwnerDeletion: true },
    ]);
    // Same group, kind and name under another version is the same owner.
    setControllerReference({ ...deployment(), apiVersion: 'apps/v2' }, child, { blockOwnerDeletion: false });
    expect(child.metadata.ownerReferences).toHaveLength(1);
    expect(child.metadata.ownerReferences?.[0]).toMatchObject({ apiVersion: 'apps/v2', blockOwnerDeletion: false });
    expect(hasControllerReference(child)).toBe(true);
    expect(getControllerOf(child)?.name).toBe('web');
  });

  it('refuses a second controller, naming the current one', () => {
    const child = configMap('ns');
    setControllerReference(deployment('a'), child);
    const err = (() => {
      try {
        setControllerReference(deployment('b'), child);
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toBeInstanceOf(AlreadyOwnedError);
    expect(err?.message).toBe(
      'ConfigMap ns/cfg is already controlled by Deployment a (uid uid-a); an object has at most one controller ' +
        '(use setOwnerReference for a non-controlling owner, or remove the other controller reference first)',
    );
    expect(child.metadata.ownerReferences).toHaveLength(1);
  });

  it('refuses owners in another namespace, namespaced owners of cluster-scoped objects, and owners not read from a server', () => {
    expect(() => setControllerReference(deployment(), configMap('other'))).toThrow(CrossNamespaceOwnerError);
    expect(() => setControllerReference(deployment(), configMap('other'))).toThrow(
      /owner Deployment ns\/web is in namespace "ns", ConfigMap other\/cfg in "other"/,
    );
    expect(() => setControllerReference(deployment(), configMap())).toThrow(ClusterScopedDependentError);
    expect(() => setControllerReference(deployment(), configMap())).toThrow(/set its metadata.namespace before/);
    expect(() => setControllerReference(deployment('web', 'ns', ''), configMap('ns'))).toThrow(IncompleteOwnerError);
    expect(() => setControllerReference({ metadata: { name: 'x', uid: 'u' } }, configMap('ns'))).toThrow(/no apiVersion\/kind/);
    // A cluster-scoped owner may own anything.
    const child = configMap('ns');
    setControllerReference(deployment('node', undefined), child);
    expect(hasControllerReference(child)).toBe(true);
  });
});

describe('setOwnerReference, hasOwnerReference, removeOwnerReference', () => {
  it('adds plain owners beside a controller, keeps the controller flag, and removes by owner', () => {
    const child = configMap('ns');
    setControllerReference(deployment('a'), child);
    setOwnerReference(deployment('b'), child);
    setOwnerReference(deployment('a'), child);
    expect(child.metadata.ownerReferences).toEqual([
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'a', uid: 'uid-a', controller: true },
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'b', uid: 'uid-b' },
    ]);
    expect(hasOwnerReference(child, deployment('b'))).toBe(true);
    expect(removeOwnerReference(child, deployment('a'))).toBe(true);
    expect(removeOwnerReference(child, deployment('a'))).toBe(false);
    expect(hasControllerReference(child)).toBe(false);
    expect(() => setOwnerReference(deployment(), configMap('x'))).toThrow(CrossNamespaceOwnerError);
  });
});
