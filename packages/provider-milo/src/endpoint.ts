/**
 * Where a project's control plane is reached. Project mode: Milo serves it under its own API at
 * `<base>/apis/resourcemanager.miloapis.com/v1alpha1/projects/<name>/control-plane`, and a path already on the base URL
 * (a gateway prefix) is kept, so Milo can sit behind a path-routing proxy. ProjectControlPlane mode: each control plane
 * is its own service, addressed by a template (`{name}` is replaced). Either way the credentials and TLS settings of
 * the base config are used.
 */
import type { Cluster } from '@multicluster-runtime/core';

type KubeConfig = Cluster['config'];

export const projectControlPlanePath = '/apis/resourcemanager.miloapis.com/v1alpha1/projects';

/** The default ProjectControlPlane address: the in-cluster service Milo creates for each project. */
export const defaultInternalAddress = 'https://milo-apiserver.project-{name}.svc.cluster.local:6443';

/** The control-plane URL of project `name` under Milo's API at `base`, keeping `base`'s path. */
export function projectControlPlaneUrl(base: string, name: string): string {
  const url = new URL(base);
  const prefix = url.pathname.replace(/\/+$/, '');
  url.pathname = `${prefix}${projectControlPlanePath}/${encodeURIComponent(name)}/control-plane`;
  url.search = '';
  url.hash = '';
  return url.toString();
}

/** Why `url` cannot be a control plane's address, or undefined if it can. */
export function urlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'it is not a URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'it must be an https:// or http:// URL';
  if (parsed.username || parsed.password) return 'it must not contain credentials';
  if (parsed.search || parsed.hash) return 'it must not have a query or fragment';
  return undefined;
}

/** Why an internal address template is unusable, or undefined. */
export function internalAddressProblem(template: string): string | undefined {
  if (!template.includes('{name}')) return 'it must contain {name}';
  return urlProblem(template.replaceAll('{name}', 'p'));
}

/** The control-plane URL of project `name` from an internal address template (checked by internalAddressProblem). */
export function internalControlPlaneUrl(template: string, name: string): string {
  return checkedUrl(template.replaceAll('{name}', name));
}

/** `url` without a trailing slash; throws when it cannot be a control plane's address. */
export function checkedUrl(url: unknown): string {
  if (typeof url !== 'string') throw new Error('the address is not a string');
  const problem = urlProblem(url);
  if (problem) throw new Error(`the address is unusable: ${problem}`);
  return new URL(url).toString().replace(/\/+$/, '');
}

/**
 * A kubeconfig for one project: the current cluster and user of `base` with the server replaced. The user entry (and
 * with it the PEM strings) is shared with `base`, not copied, so a thousand projects hold one set of credentials.
 */
export function projectKubeConfig(base: KubeConfig, name: string, server: string): KubeConfig {
  const cluster = base.getCurrentCluster();
  if (!cluster) throw new Error('the base kubeconfig has no current cluster');
  const user = base.getCurrentUser();
  // The base's own class, so the result belongs to the same copy of client-node as the caller's config.
  const kc = new (base.constructor as new () => KubeConfig)();
  const contextName = `milo-${name}`;
  kc.loadFromOptions({
    clusters: [{ ...cluster, name: contextName, server: server.replace(/\/+$/, '') }],
    users: user ? [user] : [],
    contexts: [{ name: contextName, cluster: contextName, ...(user ? { user: user.name } : {}) }],
    currentContext: contextName,
  });
  return kc;
}
