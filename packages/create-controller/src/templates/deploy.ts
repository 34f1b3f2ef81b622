/**
 * The manifests under deploy/: the namespace, the ServiceAccount and its least RBAC on the host (its leader-election
 * Lease and what the provider reads), the Deployment, and deploy/member/ for each member (what the sample
 * reconciler reads and writes there). Each is built as data and written as YAML; a scaffold test applies them to a
 * real kube-apiserver under its RBAC authorizer, so a missing rule shows up as Forbidden.
 */
import type { PolicyRule, ProviderChoice } from '../providers.js';
import { toYaml, type YamlValue } from '../yaml.js';

/** deploy/ file name → contents. Numbered, because `kubectl apply -f deploy/` applies files in name order: the namespace first. */
export type Manifests = Record<string, string>;

const rbac = 'rbac.authorization.k8s.io/v1';

function role(kind: 'Role' | 'ClusterRole', name: string, namespace: string | undefined, rules: PolicyRule[]): YamlValue[] {
  const bindingKind = kind === 'Role' ? 'RoleBinding' : 'ClusterRoleBinding';
  const meta = namespace === undefined ? { name } : { name, namespace };
  return [
    { apiVersion: rbac, kind, metadata: meta, rules: rules.map((r) => ({ ...r })) },
    { apiVersion: rbac, kind: bindingKind, metadata: meta, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name }, subjects: [] },
  ];
}

function bindTo(documents: YamlValue[], subject: { name: string; namespace: string }): YamlValue[] {
  return documents.map((d) => {
    const doc = d as Record<string, YamlValue>;
    return doc['subjects'] ? { ...doc, subjects: [{ kind: 'ServiceAccount', ...subject }] } : doc;
  });
}

export function deployManifests(name: string, provider: ProviderChoice): Manifests {
  const namespace = `${name}-system`;
  const account = { name, namespace };
  const labels = { 'app.kubernetes.io/name': name };

  const hostRbac: YamlValue[] = [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { ...account, labels } },
    ...bindTo(
      role('Role', `${name}-leader-election`, namespace, [
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
      ]),
      account,
    ),
  ];
  if (provider.namespacedRules.length > 0)
    hostRbac.push(...bindTo(role('Role', `${name}-fleet`, namespace, provider.namespacedRules), account));
  if (provider.clusterRules.length > 0)
    hostRbac.push(...bindTo(role('ClusterRole', `${name}-fleet`, undefined, provider.clusterRules), account));

  const manifests: Manifests = {
    '00-namespace.yaml': toYaml({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels } }),
    '10-rbac.yaml': toYaml(...hostRbac),
    '20-deployment.yaml': toYaml(deployment(name, namespace, labels, provider)),
    'member/rbac.yaml': toYaml(...memberRbac(name, namespace)),
  };
  if (provider.id === 'cluster-profiles') {
    manifests['10-access-config.yaml'] = toYaml({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${name}-access-config`, namespace },
      // Fill in your credential plugins, as sigs.k8s.io/cluster-inventory-api's access file describes them.
      data: { 'access-config.json': JSON.stringify({ providers: [] }) },
    });
  }
  if (provider.id === 'gardener') {
    // Applied in the garden, bound in the project namespace (see the README): read Shoots, ask for admin kubeconfigs.
    manifests['garden/rbac.yaml'] = toYaml(
      ...role('ClusterRole', `${name}-garden`, undefined, [
        { apiGroups: ['core.gardener.cloud'], resources: ['shoots'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['core.gardener.cloud'], resources: ['shoots/adminkubeconfig'], verbs: ['create'] },
      ]),
    );
  }
  if (provider.id === 'kcp') {
    manifests['kcp/rbac.yaml'] = toYaml(
      ...role('ClusterRole', `${name}-apiexport`, undefined, [
        { apiGroups: ['apis.kcp.io'], resources: ['apiexportendpointslices'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['apis.kcp.io'], resources: ['apiexports/content'], verbs: ['*'] },
      ]),
    );
  }
  return manifests;
}

function deployment(name: string, namespace: string, labels: Record<string, string>, provider: ProviderChoice): YamlValue {
  const env: YamlValue[] = [
    { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    ...Object.entries(provider.env).map(([variable, value]) => ({ name: variable, value })),
  ];
  const probe = (path: string) => ({ httpGet: { path, port: 'probes' }, periodSeconds: 10 });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: name,
          securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: 'controller',
              image: `${name}:latest`,
              env,
              ports: [
                { name: 'metrics', containerPort: 8080 },
                { name: 'probes', containerPort: 8081 },
              ],
              livenessProbe: probe('/healthz'),
              readinessProbe: probe('/readyz'),
              resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' } },
              securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
              volumeMounts:
                provider.mounts.length > 0
                  ? provider.mounts.map((m) => ({ name: m.volume, mountPath: m.path, readOnly: true }))
                  : undefined,
            },
          ],
          volumes:
            provider.mounts.length > 0
              ? provider.mounts.map((m) =>
                  'secret' in m.from
                    ? { name: m.volume, secret: { secretName: m.from.secret } }
                    : { name: m.volume, configMap: { name: m.from.configMap } },
                )
              : undefined,
        },
      },
    },
  };
}

/** In each member: the identity member kubeconfigs carry, and what the sample reconciler does there. */
function memberRbac(name: string, namespace: string): YamlValue[] {
  const account = { name: `${name}-member`, namespace };
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: account },
    ...bindTo(
      role('ClusterRole', `${name}-member`, undefined, [
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
        { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
      ]),
      account,
    ),
  ];
}
