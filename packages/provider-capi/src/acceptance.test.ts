/**
 * CapiProvider runs the provider acceptance suite: each member is an envtest server described on the management
 * (host) cluster by a Cluster API `Cluster` with its control plane initialized and a `<name>-kubeconfig` Secret.
 * Removal deletes the Cluster; rotation rewrites the Secret with a fresh bearer token.
 */
import { newCluster } from '@multicluster-runtime/core';
import { describeProviderAcceptance, kubeconfigOf, type AcceptanceMember } from '@multicluster-runtime/core/testing';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { capiCluster, capiClusterCrd, goMissing, kubeconfigSecret, markInitialized } from './capi-fixtures.test-util.js';
import { CapiProvider, capiClusterName } from './index.js';

const namespace = 'fleet';
const clusterKind = { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster' };
const secretKind = { apiVersion: 'v1', kind: 'Secret' };

const crd = (await goMissing()) ? undefined : await capiClusterCrd();

if (crd)
  describeProviderAcceptance({
    name: 'CapiProvider',
    async setup() {
      const host = await startApiServer({ name: 'mgmt' });
      const admin = newCluster(kubeconfigOf(host), { name: 'mgmt-admin' });
      await admin.apiReader.create(crd);
      await admin.apiReader.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      const members = new Map<string, ApiServer>();
      let tokens = 0;
      const nameOf = (m: AcceptanceMember) => m.name.slice(`${namespace}/`.length);
      const putSecret = async (name: string, kubeconfig: string) => {
        const secret = kubeconfigSecret(namespace, name, kubeconfig);
        try {
          const present = await admin.apiReader.get(secretKind, { namespace, name: secret.metadata.name! });
          await admin.apiReader.update({ ...secret, metadata: { ...present.metadata } });
        } catch {
          await admin.apiReader.create(secret);
        }
      };
      const provision = async (name: string) => {
        const created = await admin.apiReader.create(capiCluster(namespace, name));
        await markInitialized(admin.apiReader, created);
      };
      return {
        host: kubeconfigOf(host),
        provider: () =>
          new CapiProvider({ namespace, probeTimeoutMs: 5_000, waitCacheTimeoutMs: 10_000, retry: { initialMs: 50, maxMs: 500 } }),
        async addMember() {
          const name = `workload-${members.size + 1}`;
          const server = await startApiServer({ name });
          members.set(name, server);
          await putSecret(name, server.kubeconfig());
          await provision(name);
          return { name: capiClusterName(namespace, name), kubeconfig: kubeconfigOf(server) };
        },
        async removeMember(m: AcceptanceMember) {
          await admin.apiReader.delete(clusterKind, { namespace, name: nameOf(m) });
        },
        async restoreMember(m: AcceptanceMember) {
          await provision(nameOf(m));
        },
        async rotateMember(m: AcceptanceMember) {
          const server = members.get(nameOf(m))!;
          const token = `rotated-${++tokens}`;
          server.addToken(token, 'admin');
          const kubeconfig = server.kubeconfig({ user: { token } });
          await putSecret(nameOf(m), kubeconfig);
          return { name: m.name, kubeconfig: kubeconfigOf(kubeconfig) };
        },
        async close() {
          await admin.close();
          await Promise.all([host, ...members.values()].map((s) => s.close()));
        },
      };
    },
  });
