/**
 * The Milo objects the provider reads and how it decides they are ready: a `Project` (Milo's core API) is ready when
 * its `Ready` condition is `True`; a `ProjectControlPlane` (the infrastructure cluster) when `ControlPlaneReady` is.
 * Both are cluster-scoped and share the project's name, which is the fleet name of its control plane in both modes.
 */
import type { KubeObject, ObjectKind } from '@multicluster-runtime/core';

/**
 * Milo's Project kind (mode `project`).
 */
export const projectKind: ObjectKind = { apiVersion: 'resourcemanager.miloapis.com/v1alpha1', kind: 'Project' };
/**
 * Milo's ProjectControlPlane kind (mode `projectControlPlane`).
 */
export const projectControlPlaneKind: ObjectKind = { apiVersion: 'infrastructure.miloapis.com/v1alpha1', kind: 'ProjectControlPlane' };

/** `project` watches Projects on Milo's API; `projectControlPlane` watches ProjectControlPlanes on the infra cluster. */
export type MiloMode = 'project' | 'projectControlPlane';

export const readyConditionOf: Readonly<Record<MiloMode, string>> = {
  project: 'Ready',
  projectControlPlane: 'ControlPlaneReady',
};

export const watchedKindOf: Readonly<Record<MiloMode, ObjectKind>> = {
  project: projectKind,
  projectControlPlane: projectControlPlaneKind,
};

/** Whether `obj.status.conditions` holds `type` with status `"True"`. A missing or malformed list counts as not ready. */
export function conditionIsTrue(obj: KubeObject, type: string): boolean {
  const conditions = (obj as { status?: { conditions?: unknown } }).status?.conditions;
  if (!Array.isArray(conditions)) return false;
  return conditions.some((c: unknown) => {
    const condition = c as { type?: unknown; status?: unknown } | null;
    return condition !== null && typeof condition === 'object' && condition.type === type && condition.status === 'True';
  });
}

const DNS_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS_SUBDOMAIN = new RegExp(`^${DNS_LABEL}(\\.${DNS_LABEL})*$`);

/**
 * Whether `name` can name a project's control plane. The API server only admits DNS-1123 subdomains for these
 * objects; checking again keeps a name from ever reshaping a URL path or host name built from it.
 */
export function isProjectName(name: string): boolean {
  return name.length > 0 && name.length <= 253 && DNS_SUBDOMAIN.test(name);
}
