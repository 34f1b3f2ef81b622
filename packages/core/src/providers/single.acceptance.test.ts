/** SingleClusterProvider runs the provider acceptance suite: a fixed fleet of one member, engaged under a fixed name. */
import { newCluster, SingleClusterProvider } from '@multicluster-runtime/core';
import { describeProviderAcceptance, kubeconfigOf, type AcceptanceMember } from '@multicluster-runtime/core/testing';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';

describeProviderAcceptance({
  name: 'SingleClusterProvider',
  async setup() {
    const host = await startApiServer({ name: 'host' });
    const servers: ApiServer[] = [host];
    let member: AcceptanceMember | undefined;
    return {
      host: kubeconfigOf(host),
      addsAfterStart: false,
      async addMember() {
        if (member) throw new Error('a SingleClusterProvider fleet has one member');
        const server = await startApiServer({ name: 'single' });
        servers.push(server);
        member = { name: 'single', kubeconfig: kubeconfigOf(server) };
        return member;
      },
      provider() {
        if (!member) throw new Error('add the member before building the provider');
        return new SingleClusterProvider(member.name, newCluster(member.kubeconfig, { name: member.name }));
      },
      async close() {
        await Promise.all(servers.map((s) => s.close()));
      },
    };
  },
});
