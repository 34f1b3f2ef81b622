/**
 * GardenerProvider runs the provider acceptance suite in the garden topology: the host is envtest's fake garden and
 * each member an in-memory API server behind a Shoot, reached through kubeconfigs from `shoots/adminkubeconfig`.
 * Removal deletes the Shoot; rotation moves the Shoot to a new API server.
 */
import { describeProviderAcceptance, kubeconfigOf, type AcceptanceMember } from '@multicluster-runtime/core/testing';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { startGardenServer } from '@multicluster-runtime/envtest/gardener';
import { GardenerProvider, shootClusterName } from './index.js';

const project = 'fleet';

describeProviderAcceptance({
  name: 'GardenerProvider',
  async setup() {
    const garden = await startGardenServer({ name: 'garden' });
    const servers: ApiServer[] = [];
    const shootOf = (m: AcceptanceMember) => m.name.slice(`garden-${project}/`.length);
    const backing = new Map<string, ApiServer>();
    const newServer = async (name: string) => {
      const server = await startApiServer({ name });
      servers.push(server);
      return server;
    };
    return {
      host: kubeconfigOf(garden),
      provider: () => new GardenerProvider({ probeTimeoutMs: 5_000, waitCacheTimeoutMs: 10_000, retry: { initialMs: 50, maxMs: 500 } }),
      async addMember() {
        const shoot = `shoot-${backing.size + 1}`;
        const server = await newServer(shoot);
        backing.set(shoot, server);
        await garden.fixtures.createShoot(project, shoot, { server });
        return { name: shootClusterName(`garden-${project}`, shoot), kubeconfig: kubeconfigOf(server) };
      },
      async removeMember(m: AcceptanceMember) {
        await garden.fixtures.deleteShoot(project, shootOf(m));
      },
      async restoreMember(m: AcceptanceMember) {
        await garden.fixtures.createShoot(project, shootOf(m), { server: backing.get(shootOf(m))! });
      },
      async rotateMember(m: AcceptanceMember) {
        const server = await newServer(`${shootOf(m)}-moved`);
        backing.set(shootOf(m), server);
        await garden.fixtures.moveShoot(project, shootOf(m), server);
        return { name: m.name, kubeconfig: kubeconfigOf(server) };
      },
      async close() {
        await Promise.all([garden, ...servers].map((s) => s.close()));
      },
    };
  },
});
