/**
 * Small consumer files type-checked in the tarball-installed project, beside the README examples. Each uses a
 * package's public types the way a user's code does, and each has a `@ts-expect-error` on a misuse: if a packed
 * declaration went missing or degraded to `any` (a dropped .d.ts, a `types` condition pointing nowhere, an import of
 * an undeclared package under skipLibCheck), the misuse would compile and tsc would report the unused directive.
 */

/** File name → source, keyed by the folder under packages/ whose declarations the file exercises. */
const byPackage: Record<string, string> = {
  core: `
import { KubeConfig } from '@kubernetes/client-node';
import {
  ClusterEngager,
  ClusterNotFoundError,
  EngagerProvider,
  isClusterNotFound,
  newManager,
  type ClusterName,
  type ProviderContext,
} from '@multicluster-runtime/core';
import { rendezvousOwner, type Peer } from '@multicluster-runtime/core/sharding';
import { sleep, whenAborted } from '@multicluster-runtime/core/signal';

// Machinery is typed behind its subpath as in the root.
export const owner: Peer | undefined = rendezvousOwner('prod-eu-1', []);
// @ts-expect-error sleep takes milliseconds, not a duration string
export const nap = () => sleep('1s');

export const manager = newManager(new KubeConfig());
export const missing: ClusterName = 'gone';
export const notFound: boolean = isClusterNotFound(new ClusterNotFoundError(missing));
// @ts-expect-error newManager takes a KubeConfig, not a path
newManager('/root/.kube/config');

// A provider as its author writes one: started with a ProviderContext.
export class MyProvider extends EngagerProvider {
  constructor() {
    super('MyProvider', new ClusterEngager('my-provider'));
  }
  protected async discover(signal: AbortSignal, context: ProviderContext): Promise<void> {
    this.engager.begin(context.aware, signal);
    this.log.info('discovering', { onHost: context.localCluster !== undefined });
    await whenAborted(signal);
  }
}
// @ts-expect-error a provider is started with a ProviderContext, not a bare Aware
export const wrong = () => new MyProvider().start(new AbortController().signal, { engage: async () => {} });
`,
  envtest: `
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { startKcpServer, type KcpWorkspace } from '@multicluster-runtime/envtest/kcp';
import { startMiloServer } from '@multicluster-runtime/envtest/milo';
import { startTestEnvironment, type TestEnvironmentOptions } from '@multicluster-runtime/envtest/real';

export async function serverUrl(): Promise<string> {
  const server: ApiServer = await startApiServer({ name: 'consumer' });
  await server.close();
  return server.url;
}
export async function workspace(): Promise<KcpWorkspace> {
  const kcp = await startKcpServer();
  try {
    return await kcp.createWorkspace('root:consumer');
  } finally {
    await kcp.close();
  }
}
export const milo = () => startMiloServer().then((m) => m.close());
export const real: TestEnvironmentOptions = { name: 'consumer' };
export const startReal = () => startTestEnvironment(real);
// @ts-expect-error the server's name is a string
export const wrong = () => startApiServer({ name: 42 });
// @ts-expect-error the real tier's name is a string
export const wrongReal = () => startTestEnvironment({ name: 42 });
`,
  'provider-kind': `
import type { ProviderRunnable } from '@multicluster-runtime/core';
import { KindProvider } from '@multicluster-runtime/provider-kind';

export const kind: ProviderRunnable = new KindProvider({ namePrefix: 'dev-' });
// @ts-expect-error namePrefix is a string
export const wrong = new KindProvider({ namePrefix: 42 });
`,
  'provider-kubeconfig': `
import type { ProviderRunnable } from '@multicluster-runtime/core';
import { KubeconfigFileProvider, KubeconfigSecretProvider } from '@multicluster-runtime/provider-kubeconfig';

export const files: ProviderRunnable = new KubeconfigFileProvider({ paths: ['./fleet'] });
export const secrets: ProviderRunnable = new KubeconfigSecretProvider({ namespace: 'fleet-system' });
// @ts-expect-error the namespace is required
export const wrong = new KubeconfigSecretProvider({});
`,
  'provider-gardener': `
import type { ProviderRunnable } from '@multicluster-runtime/core';
import { GardenerProvider, shootClusterName, shootReadiness } from '@multicluster-runtime/provider-gardener';

export const garden: ProviderRunnable = new GardenerProvider({ namespace: 'garden-dev', access: 'viewer', expirationSeconds: 600 });
export const seed: ProviderRunnable = new GardenerProvider({ topology: 'seed' });
export const name: string = shootClusterName('garden-dev', 'alpha');
export const ready: boolean = shootReadiness({ apiVersion: 'core.gardener.cloud/v1beta1', kind: 'Shoot', metadata: {} }).ready;
// @ts-expect-error the topology is garden or seed
export const wrong = new GardenerProvider({ topology: 'shoot' });
`,
  'provider-namespace': `
import { isForbidden, type ProviderRunnable } from '@multicluster-runtime/core';
import { NamespaceProvider, NamespaceScopeError } from '@multicluster-runtime/provider-namespace';

export const namespaces: ProviderRunnable = new NamespaceProvider({ labelSelector: { matchLabels: { fleet: 'on' } } });
export const forbidden: boolean = isForbidden(new NamespaceScopeError('team-a', 'a Node is cluster-scoped'));
// @ts-expect-error the selector is a string, a map or a LabelSelector
export const wrong = new NamespaceProvider({ labelSelector: 42 });
`,
  'create-controller': `
import { providerIds, renderProject, pinnedVersions, providerChoice, type ProviderId } from '@multicluster-runtime/create-controller';

const id: ProviderId = providerIds[0];
export const files: Record<string, string> = renderProject({ name: 'x', provider: providerChoice(id, 'x'), versions: pinnedVersions(), undiciOverride: false });
// @ts-expect-error the provider must be one of providerIds
export const wrong = providerChoice('docker', 'x');
`,
  'provider-capi': `
import type { ProviderRunnable } from '@multicluster-runtime/core';
import { CapiProvider, capiClusterName } from '@multicluster-runtime/provider-capi';

export const capi: ProviderRunnable = new CapiProvider({ namespace: 'fleet' });
export const name: string = capiClusterName('fleet', 'prod-eu-1');
// @ts-expect-error the namespace is a string
export const wrong = new CapiProvider({ namespace: ['fleet'] });
`,
  'provider-cluster-inventory-api': `
import type { ProviderRunnable } from '@multicluster-runtime/core';
import { ClusterProfileProvider, clusterProfileName, type AccessConfig } from '@multicluster-runtime/provider-cluster-inventory-api';

const accessConfig: AccessConfig = { providers: [{ name: 'secretreader', execConfig: { command: 'secretreader-plugin', provideClusterInfo: true } }] };
export const profiles: ProviderRunnable = new ClusterProfileProvider({ namespace: 'fleet', accessConfig });
export const name: string = clusterProfileName('fleet', 'spoke-1');
// @ts-expect-error an env policy is 'AppendIfNotExists', 'Replace' or 'Ignore'
export const wrong = new ClusterProfileProvider({ accessConfig: { providers: [{ name: 'a', execConfig: { command: 'a' }, profileSourcedEnvVarsPolicy: 'Always' }] } });
`,
  'provider-kcp-apiexport': `
import { KubeConfig } from '@kubernetes/client-node';
import type { ProviderRunnable } from '@multicluster-runtime/core';
import { ApiExportProvider } from '@multicluster-runtime/provider-kcp-apiexport';

export const fleet: ProviderRunnable = new ApiExportProvider({ endpointSliceName: 'example.com', exportConfig: new KubeConfig() });
// @ts-expect-error the endpoint slice's name is required
export const wrong = new ApiExportProvider({ exportConfig: new KubeConfig() });
`,
  'provider-milo': `
import type { ProviderRunnable } from '@multicluster-runtime/core';
import { MiloProvider, type MiloMode } from '@multicluster-runtime/provider-milo';

const mode: MiloMode = 'projectControlPlane';
export const projects: ProviderRunnable = new MiloProvider({ mode, internalAddress: 'https://cp-{name}.example:6443' });
// @ts-expect-error the mode is 'project' or 'projectControlPlane'
export const wrong = new MiloProvider({ mode: 'organization' });
`,
  webhook: `
import { newManager } from '@multicluster-runtime/core';
import { KubeConfig } from '@kubernetes/client-node';
import { WebhookServer, denied, withValidator, type AdmissionWebhook } from '@multicluster-runtime/webhook';

const mgr = newManager(new KubeConfig());
export const server = new WebhookServer(mgr, { certFile: 'tls.crt', keyFile: 'tls.key', clusterSources: ['path', 'kcp'] });
export const hook: AdmissionWebhook = withValidator({ validateCreate: (ctx) => denied(\`not in \${ctx.clusterName}\`) });
// @ts-expect-error cluster sources are 'path', 'kcp' or 'milo'
export const wrong = new WebhookServer(mgr, { certFile: 'c', keyFile: 'k', clusterSources: ['dns'] });
`,
  'provider-multi': `
import type { Provider, ProviderRunnable } from '@multicluster-runtime/core';
import { MultiProvider } from '@multicluster-runtime/provider-multi';

export async function compose(members: Record<string, Provider>): Promise<ProviderRunnable> {
  const fleet = new MultiProvider({ separator: '#' });
  for (const [name, provider] of Object.entries(members)) await fleet.add(name, provider);
  return fleet;
}
// @ts-expect-error a member is a provider, not a kubeconfig path
export const wrong = () => new MultiProvider().add('files', './fleet');
`,
};

/** The consumer files for a project installing `packages` (folders under packages/): `consumer-<package>.ts`. */
export function consumerFiles(packages: string[]): Record<string, string> {
  const files: Record<string, string> = {};
  for (const p of packages) {
    const source = byPackage[p];
    if (source !== undefined) files[`consumer-${p}.ts`] = source.trimStart();
  }
  return files;
}
