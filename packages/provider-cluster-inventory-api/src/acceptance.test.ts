/**
 * ClusterProfileProvider runs the provider acceptance suite: each member is an envtest server described on the hub
 * by a healthy ClusterProfile whose access provider is the real `secretreader` plugin (built from
 * sigs.k8s.io/cluster-inventory-api), which reads the member's token from a Secret on the hub. Removal deletes the
 * profile; rotation gives the member a new token under a new Secret and points the profile's exec extension at it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeProviderAcceptance, kubeconfigOf, type AcceptanceMember } from '@multicluster-runtime/core/testing';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { ClusterProfileProvider, clusterProfileKind, clusterProfileName, execExtension } from './index.js';
import {
  adminClient,
  clusterEntry,
  goMissing,
  installClusterProfileCrd,
  inventoryAssets,
  putProfile,
  secretreaderAccess,
} from './inventory-fixtures.test-util.js';

const namespace = 'fleet';
const missing = await goMissing();
const assets = missing ? undefined : await inventoryAssets();

if (assets) {
  describeProviderAcceptance({
    name: 'ClusterProfileProvider',
    async setup() {
      const hub = await startApiServer({ name: 'hub' });
      const admin = adminClient(hub.kubeconfig(), 'hub-admin');
      await installClusterProfileCrd(admin.client, assets.clusterProfileCrd);
      await admin.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      const dir = await mkdtemp(join(tmpdir(), 'mcr-inventory-acceptance-'));
      const hubKubeconfig = join(dir, 'hub.kubeconfig');
      await hub.writeKubeconfig(hubKubeconfig, { namespace });
      const members = new Map<string, ApiServer>();
      let tokens = 0;
      const nameOf = (m: AcceptanceMember) => m.name.slice(`${namespace}/`.length);
      /** A fresh token for the member, in a fresh Secret the profile's exec extension names. */
      const publish = async (name: string): Promise<string> => {
        const token = `token-${++tokens}`;
        members.get(name)!.addToken(token, { username: 'inventory-consumer' });
        const secret = `${name}-${tokens}`;
        await admin.client.create({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { namespace, name: secret },
          data: { token: Buffer.from(token).toString('base64') },
        });
        return token;
      };
      const profile = async (name: string) => {
        const server = members.get(name)!;
        const extension = { clusterName: `${name}-${tokens}` };
        await putProfile(admin.client, namespace, name, {
          accessProviders: [
            { name: 'secretreader', cluster: clusterEntry(server.url, server.caPem, [{ name: execExtension, extension }]) },
          ],
        });
      };
      return {
        host: kubeconfigOf(hub),
        provider: () =>
          new ClusterProfileProvider({
            accessConfig: secretreaderAccess(assets.secretreader, hubKubeconfig),
            probeTimeoutMs: 5_000,
            waitCacheTimeoutMs: 10_000,
            retry: { initialMs: 50, maxMs: 500 },
          }),
        async addMember() {
          const name = `spoke-${members.size + 1}`;
          members.set(name, await startApiServer({ name }));
          await publish(name);
          await profile(name);
          return { name: clusterProfileName(namespace, name), kubeconfig: kubeconfigOf(members.get(name)!) };
        },
        async removeMember(m: AcceptanceMember) {
          await admin.client.delete(clusterProfileKind, { namespace, name: nameOf(m) });
        },
        async restoreMember(m: AcceptanceMember) {
          await profile(nameOf(m));
        },
        async rotateMember(m: AcceptanceMember) {
          const token = await publish(nameOf(m));
          await profile(nameOf(m));
          return { name: m.name, kubeconfig: kubeconfigOf(members.get(nameOf(m))!.kubeconfig({ user: { token } })) };
        },
        async close() {
          await admin.close();
          await Promise.all([hub, ...members.values()].map((s) => s.close()));
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  });
}
