/**
 * MiloProvider runs the provider acceptance suite in both modes against a fake Milo: members are ready Projects
 * (project mode) or ready ProjectControlPlanes (reached through the internal address pattern), named after the
 * project; removal deletes the object. No rotation: a member's address follows from its name.
 */
import { describeProviderAcceptance, kubeconfigOf, type AcceptanceMember } from '@multicluster-runtime/core/testing';
import { startMiloServer } from '@multicluster-runtime/envtest/milo';
import { MiloProvider, type MiloMode } from './index.js';

for (const mode of ['project', 'projectControlPlane'] as const satisfies readonly MiloMode[]) {
  describeProviderAcceptance({
    name: `MiloProvider (${mode} mode)`,
    async setup() {
      const milo = await startMiloServer({ name: 'milo' });
      const create = (name: string) =>
        mode === 'project'
          ? milo.fixtures.createProject(name, { ready: true })
          : milo.fixtures.createProjectControlPlane(name, { ready: true });
      let projects = 0;
      return {
        host: kubeconfigOf(milo.kubeconfig()),
        provider: () =>
          new MiloProvider({
            mode,
            ...(mode === 'projectControlPlane' ? { internalAddress: milo.internalAddress } : {}),
            probeTimeoutMs: 5_000,
            waitCacheTimeoutMs: 10_000,
            retry: { initialMs: 50, maxMs: 500 },
          }),
        async addMember() {
          const name = `project-${++projects}`;
          await create(name);
          return { name, kubeconfig: kubeconfigOf(milo.projectKubeconfig(name)) };
        },
        async removeMember(m: AcceptanceMember) {
          await (mode === 'project' ? milo.fixtures.deleteProject(m.name) : milo.fixtures.deleteProjectControlPlane(m.name));
        },
        async restoreMember(m: AcceptanceMember) {
          await create(m.name);
        },
        close: () => milo.close(),
      };
    },
  });
}
