/**
 * Kubeconfig YAML for a test server, like envtest's KubeConfigFromREST: the CA inline, and always a user (client-node
 * skips the CA when the context has no user): the shared admin client certificate by default, or a bearer token.
 */
import { stringify } from 'yaml';
import { InvalidOptionsError } from './errors.js';
import { isLogicalClusterName } from './cluster-path.js';
import type { KeyPairPem } from './tls/certificate-authority.js';

/** What a kubeconfig of an in-memory server says: the user (client certificate or token), namespace, context name, and the kcp logical cluster. */
export interface KubeconfigOptions {
  /** 'admin' (client certificate CN=admin, O=system:masters; the default) or a bearer token the server knows. */
  user?: 'admin' | { token: string };
  /** The context's default namespace (default "default"). */
  namespace?: string;
  /** Name of the cluster, user and context entries (default: the server's name). */
  contextName?: string;
  /** kcp mode: address this logical cluster (`/clusters/<name>`, or `*` for the wildcard view). */
  logicalCluster?: string;
}

export interface KubeconfigInput {
  server: string;
  name: string;
  caPem: string;
  admin: KeyPairPem;
}

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

function serverUrl(server: string, logicalCluster: string | undefined): string {
  if (logicalCluster === undefined) return server;
  if (logicalCluster !== '*' && !isLogicalClusterName(logicalCluster))
    throw new InvalidOptionsError(`invalid logical cluster name ${JSON.stringify(logicalCluster)}`);
  return `${server}/clusters/${logicalCluster}`;
}

export function renderKubeconfig(input: KubeconfigInput, opts: KubeconfigOptions = {}): string {
  const name = opts.contextName ?? input.name;
  if (!name) throw new InvalidOptionsError('contextName must not be empty');
  const userSpec = opts.user ?? 'admin';
  let user: Record<string, string>;
  if (userSpec === 'admin') user = { 'client-certificate-data': b64(input.admin.certPem), 'client-key-data': b64(input.admin.keyPem) };
  else if (typeof userSpec === 'object' && typeof userSpec.token === 'string' && userSpec.token !== '') user = { token: userSpec.token };
  else throw new InvalidOptionsError("kubeconfig user must be 'admin' or { token: string } with a non-empty token");
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: serverUrl(input.server, opts.logicalCluster), 'certificate-authority-data': b64(input.caPem) } }],
    users: [{ name, user }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: opts.namespace ?? 'default' } }],
    'current-context': name,
    preferences: {},
  });
}
