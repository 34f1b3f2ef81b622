/**
 * How a ClusterProfile's member is reached (KEP 5339): the profile names access providers and, for each, the
 * cluster's endpoint and CA; the operator's access configuration maps a provider name to a credential plugin. The
 * profile is untrusted input, so it can choose among the operator's plugins but never name a command: it supplies
 * the endpoint, the CA and — only as far as the operator's policies allow — extra plugin arguments and environment
 * variables, which reach the plugin as `argv` and `env` (never through a shell). Everything refused says why, and no
 * value from the profile other than provider names is quoted back.
 */
import type { Cluster } from '@multicluster-runtime/core';
import { certificateAuthorityProblem, connectionFingerprint } from '@multicluster-runtime/core/kubeconfig';
import { refusedCluster, type DesiredCluster } from '@multicluster-runtime/core/providers';
import type { AccessConfig, AccessProviderConfig } from './access-config.js';
import type { ClusterProfile, ProfileAccessProvider, ProfileCluster } from './cluster-profile.js';

type KubeConfig = Cluster['config'];
/** Makes an empty KubeConfig of the caller's copy of client-node (the hub's config class). */
export type KubeConfigFactory = () => KubeConfig;

/** KEP 5339's reserved extensions, and SIG Auth's key for data handed to the plugin as `spec.cluster.config`. */
export const additionalArgsExtension = 'clusterprofiles.multicluster.x-k8s.io/exec/additional-args';
/**
 * KEP 5339's extension carrying extra plugin environment variables (a map of names to values).
 */
export const additionalEnvsExtension = 'clusterprofiles.multicluster.x-k8s.io/exec/additional-envs';
/**
 * SIG Auth's cluster extension whose content reaches the plugin as `spec.cluster.config`.
 */
export const execExtension = 'client.authentication.k8s.io/exec';

const maxArgs = 64;
const maxEnvs = 64;
const maxValueLength = 4096;
/** Characters a shell would act on: a profile's argument has no use for them (nor for control characters). */
const shellSyntax = /[;&|$`<>(){}\\!*?[\]~#'"]/;
const hasControl = (s: string): boolean => [...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
const envName = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Variables that change which program runs or what it loads, or where a plugin reads its own credentials. */
const reservedEnv =
  /^(PATH|HOME|SHELL|IFS|ENV|BASH_ENV|CDPATH|KUBECONFIG|KUBERNETES_EXEC_INFO|NODE_OPTIONS|NODE_PATH|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PERL5LIB|PERL5OPT|RUBYOPT|RUBYLIB|GCONV_PATH|LD_.*|DYLD_.*|GODEBUG|SSL_CERT_FILE|SSL_CERT_DIR|HTTPS?_PROXY|https?_proxy|NO_PROXY|no_proxy|ALL_PROXY)$/;

class Refusal extends Error {
  constructor(
    readonly state: 'invalid' | 'rejected',
    message: string,
  ) {
    super(message);
  }
}

/**
 * The member a ready profile describes, reached through the first of the operator's providers it lists: a config
 * whose fingerprint changes with the endpoint, CA or plugin invocation (so a rotation re-engages), or why not.
 * `onDeprecated` is told when the provider came from the deprecated `credentialProviders`.
 */
export function accessFor(
  profile: ClusterProfile,
  config: AccessConfig,
  newKubeConfig: KubeConfigFactory,
  onDeprecated?: () => void,
): DesiredCluster {
  try {
    const { offered, deprecated } = offeredProviders(profile);
    if (offered.size === 0) {
      throw new Refusal('invalid', 'status.accessProviders is empty: the cluster manager has not published how to reach the cluster');
    }
    const provider = config.providers.find((p) => offered.has(p.name));
    if (!provider) {
      const names = [...offered.keys()].slice(0, 8).map((n) => JSON.stringify(n.slice(0, 63)));
      throw new Refusal(
        'rejected',
        `none of the profile's access providers (${names.join(', ')}) is in the operator's access configuration ` +
          `(configured: ${config.providers.map((p) => JSON.stringify(p.name)).join(', ')})`,
      );
    }
    if (deprecated.has(provider.name)) onDeprecated?.();
    const kc = kubeConfigFor(offered.get(provider.name)!, provider, newKubeConfig());
    return { kind: 'config', config: kc, fingerprint: connectionFingerprint(kc) };
  } catch (err) {
    if (err instanceof Refusal) return refusedCluster(err.state, err.message);
    throw err;
  }
}

/** Name → cluster from credentialProviders, then accessProviders (which win a clash); entries without a name skipped. */
function offeredProviders(profile: ClusterProfile): { offered: Map<string, ProfileCluster>; deprecated: Set<string> } {
  const offered = new Map<string, ProfileCluster>();
  const deprecated = new Set<string>();
  const add = (list: unknown, isDeprecated: boolean) => {
    if (!Array.isArray(list)) return;
    for (const entry of list as ProfileAccessProvider[]) {
      if (typeof entry?.name !== 'string' || entry.name === '') continue;
      offered.set(entry.name, isObject(entry.cluster) ? entry.cluster : {});
      if (isDeprecated) deprecated.add(entry.name);
      else deprecated.delete(entry.name);
    }
  };
  add(profile.status?.credentialProviders, true);
  add(profile.status?.accessProviders, false);
  return { offered, deprecated };
}

function kubeConfigFor(cluster: ProfileCluster, provider: AccessProviderConfig, kc: KubeConfig): KubeConfig {
  const where = `access provider ${JSON.stringify(provider.name)}: cluster`;
  const server = checkedServer(cluster.server, where);
  const caData = checkedCa(cluster['certificate-authority-data'], where);
  if (cluster['insecure-skip-tls-verify'] === true) {
    throw new Refusal('rejected', `${where}.insecure-skip-tls-verify is true: TLS verification is never turned off for a profile`);
  }
  if (cluster['proxy-url'] !== undefined && cluster['proxy-url'] !== '') {
    throw new Refusal('invalid', `${where}.proxy-url is set: connecting through a proxy is not supported`);
  }
  const tlsServerName = cluster['tls-server-name'];
  if (tlsServerName !== undefined && (typeof tlsServerName !== 'string' || !/^[A-Za-z0-9.-]{1,253}$/.test(tlsServerName))) {
    throw new Refusal('invalid', `${where}.tls-server-name is not a host name`);
  }
  const extensions = extensionsOf(cluster.extensions, where);
  const exec = provider.execConfig;
  const args = [...(exec.args ?? []), ...profileArgs(extensions.get(additionalArgsExtension), provider, where)];
  const env = mergedEnv(exec.env ?? [], extensions.get(additionalEnvsExtension), provider, where);
  const execData = extensions.get(execExtension);
  const name = 'member';
  kc.loadFromOptions({
    clusters: [{ name, server, caData, skipTLSVerify: false, ...(tlsServerName ? { tlsServerName } : {}) }],
    users: [
      {
        name,
        exec: {
          apiVersion: exec.apiVersion ?? 'client.authentication.k8s.io/v1',
          command: exec.command,
          args,
          env,
          interactiveMode: 'Never',
          provideClusterInfo: exec.provideClusterInfo === true,
          ...(exec.installHint ? { installHint: exec.installHint } : {}),
          ...(execData !== undefined ? { config: execData } : {}),
        },
      },
    ],
    contexts: [{ name, cluster: name, user: name }],
    currentContext: name,
  });
  return kc;
}

function checkedServer(value: unknown, where: string): string {
  if (typeof value !== 'string' || value === '') throw new Refusal('invalid', `${where}.server is missing`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Refusal('invalid', `${where}.server is not a URL`);
  }
  if (url.protocol !== 'https:') {
    throw new Refusal('rejected', `${where}.server is not https (${url.protocol.slice(0, 10)}): credentials only go over TLS`);
  }
  if (url.username || url.password) throw new Refusal('rejected', `${where}.server carries user information`);
  if (url.search || url.hash) throw new Refusal('invalid', `${where}.server has a query or fragment`);
  return value;
}

/** The CA as base64 of one or more PEM certificates that parse; undefined (the system's roots) when not given. */
function checkedCa(value: unknown, where: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  const field = `${where}.certificate-authority-data`;
  if (typeof value !== 'string') throw new Refusal('invalid', `${field} is not base64`);
  const problem = certificateAuthorityProblem(value);
  if (problem) throw new Refusal('invalid', `${field} ${problem}`);
  return value.replace(/\s/g, '');
}

function extensionsOf(value: unknown, where: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (value === undefined || value === null) return out;
  if (!Array.isArray(value)) throw new Refusal('invalid', `${where}.extensions is not a list`);
  for (const entry of value as unknown[]) {
    if (isObject(entry) && typeof entry['name'] === 'string') out.set(entry['name'], entry['extension']);
  }
  return out;
}

function profileArgs(value: unknown, provider: AccessProviderConfig, where: string): string[] {
  if (value === undefined || (provider.profileSourcedCLIArgsPolicy ?? 'Ignore') === 'Ignore') return [];
  const field = `${where}.extensions[${additionalArgsExtension}]`;
  if (!Array.isArray(value) || !value.every((a): a is string => typeof a === 'string')) {
    throw new Refusal('invalid', `${field} is not a list of strings`);
  }
  if (value.length > maxArgs) throw new Refusal('rejected', `${field} has more than ${maxArgs} arguments`);
  const bad = value.findIndex((a) => a.length > maxValueLength || shellSyntax.test(a) || hasControl(a));
  if (bad >= 0) {
    throw new Refusal('rejected', `${field}[${bad}] holds shell syntax, a control character or is too long; nothing was run`);
  }
  return value;
}

function mergedEnv(
  operator: ReadonlyArray<{ name: string; value: string }>,
  value: unknown,
  provider: AccessProviderConfig,
  where: string,
): Array<{ name: string; value: string }> {
  const policy = provider.profileSourcedEnvVarsPolicy ?? 'Ignore';
  if (value === undefined || policy === 'Ignore') return [...operator];
  const field = `${where}.extensions[${additionalEnvsExtension}]`;
  if (!isObject(value)) throw new Refusal('invalid', `${field} is not a map of names to strings`);
  const entries = Object.entries(value);
  if (entries.length > maxEnvs) throw new Refusal('rejected', `${field} has more than ${maxEnvs} variables`);
  const merged = new Map<string, string>();
  for (const [name, v] of entries) {
    if (!envName.test(name)) throw new Refusal('rejected', `${field} has a variable whose name is not a valid environment variable name`);
    if (reservedEnv.test(name)) throw new Refusal('rejected', `${field} sets ${name}, which a profile may not set`);
    if (typeof v !== 'string' || v.length > maxValueLength || hasControl(v)) {
      throw new Refusal('invalid', `${field}.${name} is not a single-line string`);
    }
    merged.set(name, v);
  }
  for (const { name, value: v } of operator) {
    if (policy === 'AppendIfNotExists' || !merged.has(name)) merged.set(name, v);
  }
  return [...merged].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, v]) => ({ name, value: v }));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
