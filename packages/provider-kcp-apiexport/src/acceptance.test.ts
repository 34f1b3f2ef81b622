/**
 * ApiExportProvider runs the provider acceptance suite against the fake kcp: each member is a workspace bound to the
 * provider's APIExport, named by its logical cluster; removal deletes the APIBinding. The virtual workspace serves
 * only the exported resource, so the suite's marker objects are of that kind. No rotation: a member has no
 * connection details of its own (the endpoint slice's URL is shared by every member of a shard).
 */
import { describeProviderAcceptance, kubeconfigOf, type AcceptanceMember } from '@multicluster-runtime/core/testing';
import { startKcpServer, type KcpWorkspace } from '@multicluster-runtime/envtest/kcp';
import { ApiExportProvider } from './provider.js';
import { THING, thingSchema } from './thing-schema.test-util.js';

const EXPORT = 'example.com';

describeProviderAcceptance({
  name: 'ApiExportProvider (fake kcp)',
  markerKind: THING,
  async setup() {
    const kcp = await startKcpServer({ shards: ['one', 'two'] });
    const providerWs = await kcp.createWorkspace('root:provider');
    await kcp.createExport(providerWs, { name: EXPORT, schemas: [thingSchema] });
    const workspaces = new Map<string, KcpWorkspace>();
    const bind = (ws: KcpWorkspace) => kcp.bind(ws, { exportPath: 'root:provider', exportName: EXPORT });
    return {
      host: kubeconfigOf(kcp.kubeconfig(kcp.root)),
      provider: () =>
        new ApiExportProvider({
          endpointSliceName: EXPORT,
          exportConfig: kubeconfigOf(kcp.kubeconfig(providerWs)),
          waitCacheTimeoutMs: 10_000,
          retry: { initialMs: 50, maxMs: 500 },
        }),
      async addMember() {
        // Alternate shards, so members come through both endpoints.
        const n = workspaces.size + 1;
        const ws = await kcp.createWorkspace(`root:consumer-${n}`, { shard: n % 2 === 1 ? 'one' : 'two' });
        workspaces.set(ws.name, ws);
        await bind(ws);
        return { name: ws.name, kubeconfig: kubeconfigOf(kcp.kubeconfig(ws)) };
      },
      async removeMember(m: AcceptanceMember) {
        await kcp.unbind(workspaces.get(m.name)!, EXPORT);
      },
      async restoreMember(m: AcceptanceMember) {
        await bind(workspaces.get(m.name)!);
      },
      close: () => kcp.close(),
    };
  },
});
