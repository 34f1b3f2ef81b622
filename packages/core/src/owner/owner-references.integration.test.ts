/**
 * Owner references over HTTP on the in-memory API server with its garbage collector: a controlled child is stored with
 * the reference and deleted with its owner, and the mistakes are refused before anything is written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isNotFound } from '../client/errors.js';
import { startMemoryTier, widgets, type Tier, type Widget } from '../cluster/tier.test-util.js';
import type { KubeObject } from '../object/types.js';
import { AlreadyOwnedError, ClusterScopedDependentError, CrossNamespaceOwnerError, IncompleteOwnerError } from './errors.js';
import { hasControllerReference, setControllerReference } from './owner-references.js';

let tier: Tier;
beforeAll(async () => {
  tier = await startMemoryTier({ garbageCollector: true });
});
afterAll(async () => {
  await tier?.close();
});

describe('owner references on the in-memory API server', () => {
  it('a controlled ConfigMap is stored with its controller reference and collected with its Widget', async () => {
    const client = tier.direct;
    const ns = await tier.namespace();
    const owner = await client.create<Widget>({ ...widgets, metadata: { namespace: ns, name: 'owner' } });
    const child: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ns, name: 'child' }, data: { a: '1' } };
    setControllerReference(owner, child);
    const stored = await client.create(child);
    expect(stored.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'toolkit.example.com/v1',
        kind: 'Widget',
        name: 'owner',
        uid: owner.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(hasControllerReference(stored)).toBe(true);

    // Setting it again on the object as read is idempotent; another controller is refused.
    setControllerReference(owner, stored);
    const other = await client.create<Widget>({ ...widgets, metadata: { namespace: ns, name: 'other' } });
    expect(() => setControllerReference(other, stored)).toThrow(AlreadyOwnedError);

    await client.delete(widgets, { namespace: ns, name: 'owner' });
    await expect
      .poll(() =>
        client.get({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: ns, name: 'child' }).then(
          () => 'present',
          (e: unknown) => (isNotFound(e) ? 'gone' : e),
        ),
      )
      .toBe('gone');
  });

  it('refuses, before writing, an owner in another namespace, a namespaced owner of a Namespace, and an unsaved owner', async () => {
    const client = tier.direct;
    const ns = await tier.namespace();
    const owner = await client.create<Widget>({ ...widgets, metadata: { namespace: ns, name: 'owner' } });
    expect(() =>
      setControllerReference(owner, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'x' } }),
    ).toThrow(CrossNamespaceOwnerError);
    expect(() => setControllerReference(owner, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } })).toThrow(
      ClusterScopedDependentError,
    );
    expect(() =>
      setControllerReference({ ...widgets, metadata: { namespace: ns, name: 'unsaved' } }, { metadata: { namespace: ns, name: 'x' } }),
    ).toThrow(IncompleteOwnerError);
  });
});
