/**
 * CustomResourceDefinition rules: name/group/version validation (apiextensions validation.go), name defaults, the
 * initial status, and turning an Established CRD into the ResourceType that serves its custom resources.
 */
import type { StoredObject } from '../../storage/types.js';
import type { FieldError } from '../field-error.js';
import { invalidValue, notSupported, required } from '../field-error.js';
import type { PrinterColumn, ResourceStrategy, ResourceType, ScalePaths, StructuralSchema } from '../resource-type.js';
import { ALL_VERBS } from '../resource-type.js';
import { sortKubeVersions } from '../version-priority.js';

export interface CrdNames {
  plural?: string;
  singular?: string;
  kind?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CrdVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  schema?: { openAPIV3Schema?: StructuralSchema };
  subresources?: { status?: object; scale?: object };
  additionalPrinterColumns?: PrinterColumn[];
}

export interface CrdSpec {
  group?: string;
  names?: CrdNames;
  scope?: string;
  versions?: CrdVersion[];
}

export interface CrdCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export function crdSpec(obj: StoredObject): CrdSpec {
  return (obj['spec'] as CrdSpec | undefined) ?? {};
}

export function crdConditions(obj: StoredObject): CrdCondition[] {
  return ((obj['status'] as { conditions?: CrdCondition[] } | undefined)?.conditions ?? []).filter(Boolean);
}

export function isEstablished(obj: StoredObject): boolean {
  return crdConditions(obj).some((c) => c.type === 'Established' && c.status === 'True');
}

function storageVersion(spec: CrdSpec): string | undefined {
  return spec.versions?.find((v) => v.storage)?.name;
}

function defaultNames(obj: StoredObject): void {
  const spec = crdSpec(obj);
  const names = spec.names;
  if (!names || typeof names !== 'object') return;
  if (names.kind) {
    names.singular ||= names.kind.toLowerCase();
    names.listKind ||= `${names.kind}List`;
  }
}

export const crdStrategy: ResourceStrategy = {
  prepareForCreate(obj) {
    defaultNames(obj);
    const storage = storageVersion(crdSpec(obj));
    obj['status'] = { conditions: [], acceptedNames: { plural: '', kind: '' }, storedVersions: storage ? [storage] : [] };
  },
  prepareForUpdate(obj, old) {
    defaultNames(obj);
    const storage = storageVersion(crdSpec(obj));
    const status = (old['status'] as { storedVersions?: string[] } | undefined) ?? {};
    if (storage && !(status.storedVersions ?? []).includes(storage))
      obj['status'] = { ...status, storedVersions: [...(status.storedVersions ?? []), storage] };
  },
  validate(obj, old) {
    const spec = crdSpec(obj);
    const errs: FieldError[] = [];
    const names = spec.names ?? {};
    if (!spec.group) errs.push(required('spec.group'));
    else if (!spec.group.includes('.')) errs.push(invalidValue('spec.group', spec.group, 'should be a domain with at least one dot'));
    if (!names.plural) errs.push(required('spec.names.plural'));
    if (!names.kind) errs.push(required('spec.names.kind'));
    if (spec.group && names.plural && obj.metadata.name !== `${names.plural}.${spec.group}`)
      errs.push(invalidValue('metadata.name', obj.metadata.name, 'must be spec.names.plural+"."+spec.group'));
    if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster')
      errs.push(notSupported('spec.scope', spec.scope ?? '', ['Cluster', 'Namespaced']));
    const versions = Array.isArray(spec.versions) ? spec.versions : [];
    if (versions.length === 0) errs.push(required('spec.versions', 'must have exactly one version marked as storage version'));
    else if (versions.filter((v) => v?.storage).length !== 1)
      errs.push(
        invalidValue(
          'spec.versions',
          versions.map((v) => v?.name),
          'must have exactly one version marked as storage version',
        ),
      );
    versions.forEach((v, i) => {
      if (!v?.name) errs.push(required(`spec.versions[${i}].name`));
      if (!v?.schema?.openAPIV3Schema) errs.push(required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
    });
    if (old) {
      const oldSpec = crdSpec(old);
      if (oldSpec.group !== spec.group) errs.push(invalidValue('spec.group', spec.group, 'field is immutable'));
      if (oldSpec.scope !== spec.scope) errs.push(invalidValue('spec.scope', spec.scope, 'field is immutable'));
    }
    return errs;
  },
};

/** The served resource for an Established CRD. */
export function resourceTypeForCrd(crd: StoredObject): ResourceType | undefined {
  const spec = crdSpec(crd);
  const names = spec.names ?? {};
  const versions = (spec.versions ?? []).filter((v) => v.served && v.name);
  if (!spec.group || !names.plural || !names.kind || versions.length === 0) return undefined;
  const schemas: Record<string, StructuralSchema | undefined> = {};
  const printerColumns: Record<string, PrinterColumn[] | undefined> = {};
  for (const v of versions) {
    schemas[v.name!] = v.schema?.openAPIV3Schema;
    if (Array.isArray(v.additionalPrinterColumns)) printerColumns[v.name!] = v.additionalPrinterColumns;
  }
  const withStatus = versions.some((v) => v.subresources?.status !== undefined && v.subresources.status !== null);
  const scale = versions
    .map((v) => v.subresources?.scale as Partial<ScalePaths> | undefined)
    .find((s) => s?.specReplicasPath && s.statusReplicasPath);
  return {
    group: spec.group,
    versions: sortKubeVersions(versions.map((v) => v.name!)),
    resource: names.plural,
    singular: names.singular || names.kind.toLowerCase(),
    kind: names.kind,
    listKind: names.listKind || `${names.kind}List`,
    namespaced: spec.scope !== 'Cluster',
    ...(names.shortNames ? { shortNames: names.shortNames } : {}),
    ...(names.categories ? { categories: names.categories } : {}),
    verbs: ALL_VERBS,
    subresources: [...(withStatus ? ['status'] : []), ...(scale ? ['scale'] : [])],
    ...(scale ? { scale: scale as ScalePaths } : {}),
    custom: true,
    tracksGeneration: true,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    returnDeletedObject: false,
    schemas,
    printerColumns,
  };
}
