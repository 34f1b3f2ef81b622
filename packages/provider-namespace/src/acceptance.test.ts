/**
 * NamespaceProvider runs the provider acceptance suite: one in-memory server is the host, and each member is a
 * namespace on it labelled `fleet=on` (the provider's selector). Removal takes the label off (the namespace and its
 * objects stay, the member goes); restoring puts it back. Markers are written into each member's own namespace.
 */
import { newCluster } from '@multicluster-runtime/core';
import { describeProviderAcceptance, kubeconfigOf, type AcceptanceMember } from '@multicluster-runtime/core/testing';
import { startApiServer } from '@multicluster-runtime/envtest';
import { NamespaceProvider } from './index.js';

const namespaces = { apiVersion: 'v1', kind: 'Namespace' };

describeProviderAcceptance({
  name: 'NamespaceProvider',
  async setup() {
    const server = await startApiServer({ name: 'host' });
    const admin = newCluster(kubeconfigOf(server), { name: 'host-admin' });
    let members = 0;
    const label = (name: string, value: string | null) =>
      admin.apiReader.patch(namespaces, { name }, { type: 'merge', body: { metadata: { labels: { fleet: value } } } });
    return {
      host: kubeconfigOf(server),
      provider: () =>
        new NamespaceProvider({ labelSelector: 'fleet=on', waitCacheTimeoutMs: 10_000, retry: { initialMs: 50, maxMs: 500 } }),
      async addMember() {
        const name = `member-${++members}`;
        await admin.apiReader.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { fleet: 'on' } } });
        return { name, kubeconfig: kubeconfigOf(server), markerNamespace: name };
      },
      async removeMember(m: AcceptanceMember) {
        await label(m.name, null);
      },
      async restoreMember(m: AcceptanceMember) {
        await label(m.name, 'on');
      },
      async close() {
        await admin.close();
        await server.close();
      },
    };
  },
});
