/**
 * The fleets a scaffolded controller can follow, one entry per provider: the package, the code in src/main.ts that
 * builds the host connection and the provider, the least RBAC the provider needs on the host (read-only: providers
 * only watch their source of truth), and what the Deployment mounts. Everything provider-specific a scaffold writes
 * comes from here; the templates are the same for every provider.
 */

/** The `--provider` values. */
export const providerIds = [
  'kubeconfig-secrets',
  'kubeconfig-files',
  'kind',
  'capi',
  'cluster-profiles',
  'kcp',
  'milo',
  'gardener',
  'namespaces',
] as const;
/** Where a scaffolded controller's fleet comes from: one of {@link providerIds}. */
export type ProviderId = (typeof providerIds)[number];

/** One rule of a Role or ClusterRole. */
export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/** A file the Deployment mounts from a Secret or ConfigMap the operator creates. */
export interface Mount {
  volume: string;
  path: string;
  from: { secret: string } | { configMap: string };
}

/** Everything provider-specific in a scaffolded project: its package, code, host RBAC, mounts and README text. */
export interface ProviderChoice {
  id: ProviderId;
  /** One line for `--help` and the prompt. */
  summary: string;
  package: string;
  /** The import of the provider in src/main.ts (core's import comes first, client-node's last). */
  imports: string;
  /** Statements of src/main.ts that declare `host` (a KubeConfig) and `provider`; they may use `env` and `namespace`. */
  setup: string;
  /** What the provider reads on the host, in the fleet namespace (a Role there). */
  namespacedRules: PolicyRule[];
  /** What the provider reads on the host across namespaces (a ClusterRole). */
  clusterRules: PolicyRule[];
  /** Variables the Deployment sets, and the files it mounts. */
  env: Record<string, string>;
  mounts: Mount[];
  /** README section: where the fleet comes from and how to add a member. */
  readme: string;
}

const read = ['get', 'list', 'watch'];
const hostFromDefault = `// The host: in a Pod its ServiceAccount, elsewhere $KUBECONFIG or ~/.kube/config.
const host = new KubeConfig();
host.loadFromDefault();`;

/** The choices, keyed by id; `name` is the project's name (it names the mounted Secrets and ConfigMaps). */
export function providerChoice(id: ProviderId, name: string): ProviderChoice {
  switch (id) {
    case 'kubeconfig-secrets':
      return {
        id,
        summary: 'kubeconfig Secrets on the host, one member per Secret (provider-kubeconfig)',
        package: '@multicluster-runtime/provider-kubeconfig',
        imports: `import { KubeconfigSecretProvider } from '@multicluster-runtime/provider-kubeconfig';`,
        setup: `${hostFromDefault}
// Every Secret in the fleet namespace labelled sigs.k8s.io/multicluster-runtime-kubeconfig=true is a member named
// after the Secret, reached with the kubeconfig under its "kubeconfig" key.
const provider = new KubeconfigSecretProvider({ namespace: env('FLEET_NAMESPACE', namespace) });`,
        namespacedRules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['list', 'watch'] }],
        clusterRules: [],
        env: {},
        mounts: [],
        readme: `Members are kubeconfig Secrets in the controller's namespace (\`FLEET_NAMESPACE\` to choose another), labelled
\`sigs.k8s.io/multicluster-runtime-kubeconfig=true\`, with the kubeconfig under the key \`kubeconfig\`. Mint each one
from the ServiceAccount that \`deploy/member/\` creates in the member, so the controller holds only what the sample
reconciler needs there:

\`\`\`sh
kubectl --context member-1 apply -f deploy/member/
TOKEN=$(kubectl --context member-1 -n ${name}-system create token ${name}-member --duration 8760h)
# write member-1.kubeconfig with that token and the member's server and CA, then:
kubectl -n ${name}-system create secret generic member-1 --from-file=kubeconfig=member-1.kubeconfig
kubectl -n ${name}-system label secret member-1 sigs.k8s.io/multicluster-runtime-kubeconfig=true
\`\`\``,
      };
    case 'kubeconfig-files':
      return {
        id,
        summary: 'kubeconfig files matching a glob, one member per context (provider-kubeconfig)',
        package: '@multicluster-runtime/provider-kubeconfig',
        imports: `import { KubeconfigFileProvider } from '@multicluster-runtime/provider-kubeconfig';`,
        setup: `${hostFromDefault}
// Every context of every file the glob matches is a member; files may come, change and go while it runs.
const provider = new KubeconfigFileProvider({ paths: [env('FLEET_KUBECONFIGS', './fleet/*.kubeconfig')] });`,
        namespacedRules: [],
        clusterRules: [],
        env: { FLEET_KUBECONFIGS: '/etc/fleet/*.kubeconfig' },
        mounts: [{ volume: 'fleet', path: '/etc/fleet', from: { secret: `${name}-fleet` } }],
        readme: `Members are the contexts of the kubeconfig files matching \`FLEET_KUBECONFIGS\` (default \`./fleet/*.kubeconfig\`).
In the cluster, the Deployment mounts the Secret \`${name}-fleet\` at \`/etc/fleet\`:
\`kubectl -n ${name}-system create secret generic ${name}-fleet --from-file=member-1.kubeconfig\`.`,
      };
    case 'kind':
      return {
        id,
        summary: 'local kind clusters, through the kind CLI (provider-kind; for development on your machine)',
        package: '@multicluster-runtime/provider-kind',
        imports: `import { KindProvider } from '@multicluster-runtime/provider-kind';`,
        setup: `${hostFromDefault}
// Every kind cluster whose name starts with KIND_PREFIX is a member named after it.
const provider = new KindProvider({ namePrefix: env('KIND_PREFIX', '') });`,
        namespacedRules: [],
        clusterRules: [],
        env: {},
        mounts: [],
        readme: `Members are the kind clusters on this machine whose names start with \`KIND_PREFIX\` (default: all):
\`kind create cluster --name member-1\`. kind needs Docker, so run the controller on your machine (\`npm start\`);
\`deploy/\` is there for when you switch to a provider that runs in a cluster.`,
      };
    case 'capi':
      return {
        id,
        summary: 'Cluster API Clusters on the management cluster (provider-capi)',
        package: '@multicluster-runtime/provider-capi',
        imports: `import { CapiProvider } from '@multicluster-runtime/provider-capi';`,
        setup: `${hostFromDefault}
// Every Cluster API Cluster in the fleet namespace whose control plane is up is a member named "<namespace>/<name>",
// reached with the kubeconfig Secret Cluster API writes for it.
const provider = new CapiProvider({ namespace: env('FLEET_NAMESPACE', namespace) });`,
        namespacedRules: [
          { apiGroups: ['cluster.x-k8s.io'], resources: ['clusters'], verbs: read },
          { apiGroups: [''], resources: ['secrets'], verbs: read },
        ],
        clusterRules: [],
        env: {},
        mounts: [],
        readme: `Members are the Cluster API \`Cluster\`s in the controller's namespace (\`FLEET_NAMESPACE\` to choose another; move the
Role in \`deploy/10-rbac.yaml\` with it) whose control plane is initialized, reached through their \`<cluster>-kubeconfig\` Secrets.`,
      };
    case 'cluster-profiles':
      return {
        id,
        summary: 'SIG-Multicluster ClusterProfiles on an inventory hub (provider-cluster-inventory-api)',
        package: '@multicluster-runtime/provider-cluster-inventory-api',
        imports: `import { ClusterProfileProvider, loadAccessConfigFile } from '@multicluster-runtime/provider-cluster-inventory-api';`,
        setup: `${hostFromDefault}
// Every healthy ClusterProfile in the fleet namespace is a member named "<namespace>/<name>", reached through the
// credential plugins the access file configures (never a command a profile names).
const provider = new ClusterProfileProvider({
  namespace: env('FLEET_NAMESPACE', namespace),
  accessConfig: loadAccessConfigFile(env('ACCESS_CONFIG', './access-config.json')),
});`,
        namespacedRules: [{ apiGroups: ['multicluster.x-k8s.io'], resources: ['clusterprofiles'], verbs: read }],
        clusterRules: [],
        env: { ACCESS_CONFIG: '/etc/access/access-config.json' },
        mounts: [{ volume: 'access', path: '/etc/access', from: { configMap: `${name}-access-config` } }],
        readme: `Members are the healthy \`ClusterProfile\`s in the controller's namespace (\`FLEET_NAMESPACE\` to choose another),
reached through the credential plugins listed in the access file (\`ACCESS_CONFIG\`, default \`./access-config.json\`;
in the cluster the ConfigMap \`${name}-access-config\` from \`deploy/10-access-config.yaml\`). Add your plugin there and to
the image (see the Dockerfile).`,
      };
    case 'kcp':
      return {
        id,
        summary: 'kcp workspaces bound to an APIExport (provider-kcp-apiexport)',
        package: '@multicluster-runtime/provider-kcp-apiexport',
        imports: `import { ApiExportProvider } from '@multicluster-runtime/provider-kcp-apiexport';`,
        setup: `// The host: the cluster the controller runs in (leader election); members are workspaces in kcp.
const host = new KubeConfig();
host.loadFromDefault();
// Every workspace that binds the APIExport is a member, reached through the export's virtual workspace.
const kcp = new KubeConfig();
kcp.loadFromFile(env('KCP_KUBECONFIG', './kcp.kubeconfig')); // points at the export's workspace
const provider = new ApiExportProvider({ endpointSliceName: env('ENDPOINT_SLICE', '${name}'), exportConfig: kcp });`,
        namespacedRules: [],
        clusterRules: [],
        env: { KCP_KUBECONFIG: '/etc/kcp/kubeconfig' },
        mounts: [{ volume: 'kcp', path: '/etc/kcp', from: { secret: `${name}-kcp-kubeconfig` } }],
        readme: `Members are the workspaces that bind your APIExport, reached through its APIExportEndpointSlice \`ENDPOINT_SLICE\`
(default \`${name}\`) in the export's workspace, which \`KCP_KUBECONFIG\` (default \`./kcp.kubeconfig\`) points at. The
sample reconciler watches ConfigMaps, so the APIExport must claim them (\`permissionClaims\`). \`deploy/kcp/rbac.yaml\`
is what the controller's kcp identity needs in the export's workspace; in the cluster the kubeconfig comes from the
Secret \`${name}-kcp-kubeconfig\` (key \`kubeconfig\`).`,
      };
    case 'milo':
      return {
        id,
        summary: 'Milo projects and their control planes (provider-milo)',
        package: '@multicluster-runtime/provider-milo',
        imports: `import { MiloProvider } from '@multicluster-runtime/provider-milo';`,
        setup: `// The host: Milo's API, where Projects live (in a Pod its ServiceAccount, elsewhere $KUBECONFIG).
const host = new KubeConfig();
host.loadFromDefault();
// Every ready Project is a member named after it, reached through its project control plane.
const provider = new MiloProvider();`,
        namespacedRules: [],
        clusterRules: [
          { apiGroups: ['resourcemanager.miloapis.com'], resources: ['projects'], verbs: read },
          { apiGroups: ['infrastructure.miloapis.com'], resources: ['projectcontrolplanes'], verbs: read },
        ],
        env: {},
        mounts: [],
        readme: `Members are Milo's ready \`Project\`s, reached through their project control planes on the same API server.`,
      };
    case 'gardener':
      return {
        id,
        summary: 'Gardener shoots of one project in a garden (provider-gardener)',
        package: '@multicluster-runtime/provider-gardener',
        imports: `import { GardenerProvider } from '@multicluster-runtime/provider-gardener';`,
        setup: `${hostFromDefault}
// The garden, where the project's Shoots live: a kubeconfig for a garden identity (e.g. a project ServiceAccount).
const garden = new KubeConfig();
garden.loadFromFile(env('GARDEN_KUBECONFIG', './garden.kubeconfig'));
// Every reconciled, awake Shoot of the project is a member named "<namespace>/<shoot>", reached through admin
// kubeconfigs that live an hour and are renewed in place before they expire.
const provider = new GardenerProvider({
  config: garden,
  namespace: env('GARDEN_NAMESPACE', 'garden-dev'),
  expirationSeconds: 3600,
});`,
        namespacedRules: [],
        clusterRules: [],
        env: { GARDEN_KUBECONFIG: '/etc/garden/kubeconfig' },
        mounts: [{ volume: 'garden', path: '/etc/garden', from: { secret: `${name}-garden-kubeconfig` } }],
        readme: `Members are the reconciled, awake \`Shoot\`s of one Gardener project (\`GARDEN_NAMESPACE\`, default \`garden-dev\`),
in the garden that \`GARDEN_KUBECONFIG\` (default \`./garden.kubeconfig\`) reaches; in the cluster the kubeconfig comes from
the Secret \`${name}-garden-kubeconfig\` (key \`kubeconfig\`). The controller asks each shoot's \`adminkubeconfig\` subresource
for a kubeconfig valid for an hour and renews it before it expires. \`deploy/garden/rbac.yaml\` is what the garden
identity needs; bind it in the project namespace:
\`kubectl -n garden-dev create rolebinding ${name} --clusterrole=${name}-garden --serviceaccount=garden-dev:<account>\`.`,
      };
    case 'namespaces':
      return {
        id,
        summary: 'the labelled namespaces of one cluster, each a member (provider-namespace; develop and test on one cluster)',
        package: '@multicluster-runtime/provider-namespace',
        imports: `import { NamespaceProvider } from '@multicluster-runtime/provider-namespace';`,
        setup: `${hostFromDefault}
// Every namespace labelled FLEET_SELECTOR is a member named after it; its client, cache and Events stay inside it.
const provider = new NamespaceProvider({ labelSelector: env('FLEET_SELECTOR', 'fleet=on') });`,
        namespacedRules: [],
        // Members are namespaces of the host, so the sample reconciler's own access is on the host too.
        clusterRules: [
          { apiGroups: [''], resources: ['namespaces'], verbs: read },
          { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
          { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
        ],
        env: {},
        mounts: [],
        readme: `Members are the namespaces of the host labelled \`FLEET_SELECTOR\` (default \`fleet=on\`), each reading and writing only
its own namespace: \`kubectl create namespace team-a && kubectl label namespace team-a fleet=on\`. Members live on the
host, so the ClusterRole in \`deploy/10-rbac.yaml\` also carries what the sample reconciler does in them (ConfigMaps,
Events); \`deploy/member/\` is not needed.`,
      };
  }
}
