/**
 * The Milo CustomResourceDefinitions a fake Milo serves: `Project` (Milo's core API) and `ProjectControlPlane` (the
 * infrastructure cluster), both cluster-scoped with a status subresource, as Milo installs them. Schemas stay open:
 * the fakes store what tests write, and nothing here validates Milo's own fields.
 */

const openSchema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };

/** The API group of Milo's Project. */
export const MILO_PROJECT_GROUP = 'resourcemanager.miloapis.com';
/** The API group of Milo's ProjectControlPlane. */
export const MILO_INFRA_GROUP = 'infrastructure.miloapis.com';
/** The version of both Milo groups. */
export const MILO_VERSION = 'v1alpha1';

function crd(group: string, kind: string, plural: string, parentContext: string): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}`, annotations: { 'discovery.miloapis.com/parent-contexts': parentContext } },
    spec: {
      group,
      scope: 'Cluster',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [{ name: MILO_VERSION, served: true, storage: true, schema: openSchema, subresources: { status: {} } }],
    },
  };
}

/** The CRD of Milo's cluster-scoped Project. */
export const projectCrd = crd(MILO_PROJECT_GROUP, 'Project', 'projects', 'Organization');
/** The CRD of Milo's ProjectControlPlane, which says whether a project's control plane is ready. */
export const projectControlPlaneCrd = crd(MILO_INFRA_GROUP, 'ProjectControlPlane', 'projectcontrolplanes', 'Platform');
