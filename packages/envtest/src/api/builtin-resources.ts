/** The built-in resources every server serves: what a controller and its tests need, nothing more. */
import { CONFIGMAP_COLUMNS, CRD_COLUMNS, LEASE_COLUMNS, NAMESPACE_COLUMNS, SECRET_COLUMNS, SERVICEACCOUNT_COLUMNS } from './builtin-table-columns.js';
import type { ResourceType } from './resource-type.js';
import { ALL_VERBS } from './resource-type.js';
import { crdStrategy } from './strategies/crd.js';
import { namespaceStrategy } from './strategies/namespace.js';
import { secretStrategy } from './strategies/secret.js';

const BASE = {
  verbs: ALL_VERBS,
  subresources: [] as string[],
  custom: false,
  tracksGeneration: false,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
} as const;

export const BUILTIN_RESOURCES: readonly ResourceType[] = [
  {
    ...BASE,
    group: '',
    versions: ['v1'],
    resource: 'namespaces',
    singular: 'namespace',
    kind: 'Namespace',
    listKind: 'NamespaceList',
    namespaced: false,
    shortNames: ['ns'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: ['status', 'finalize'],
    nameIsLabel: true,
    strategy: namespaceStrategy,
    tableColumns: NAMESPACE_COLUMNS,
  },
  { ...BASE, group: '', versions: ['v1'], resource: 'configmaps', singular: 'configmap', kind: 'ConfigMap', listKind: 'ConfigMapList', namespaced: true, shortNames: ['cm'], tableColumns: CONFIGMAP_COLUMNS },
  { ...BASE, group: '', versions: ['v1'], resource: 'secrets', singular: 'secret', kind: 'Secret', listKind: 'SecretList', namespaced: true, strategy: secretStrategy, tableColumns: SECRET_COLUMNS },
  { ...BASE, group: '', versions: ['v1'], resource: 'events', singular: 'event', kind: 'Event', listKind: 'EventList', namespaced: true, shortNames: ['ev'], allowCreateOnUpdate: true },
  {
    ...BASE,
    group: '',
    versions: ['v1'],
    resource: 'serviceaccounts',
    singular: 'serviceaccount',
    kind: 'ServiceAccount',
    listKind: 'ServiceAccountList',
    namespaced: true,
    shortNames: ['sa'],
    returnDeletedObject: true,
    tableColumns: SERVICEACCOUNT_COLUMNS,
  },
  { ...BASE, group: 'coordination.k8s.io', versions: ['v1'], resource: 'leases', singular: 'lease', kind: 'Lease', listKind: 'LeaseList', namespaced: true, allowCreateOnUpdate: true, tableColumns: LEASE_COLUMNS },
  { ...BASE, group: 'events.k8s.io', versions: ['v1'], resource: 'events', singular: 'event', kind: 'Event', listKind: 'EventList', namespaced: true, shortNames: ['ev'], allowCreateOnUpdate: true },
  {
    ...BASE,
    group: 'apiextensions.k8s.io',
    versions: ['v1'],
    resource: 'customresourcedefinitions',
    singular: 'customresourcedefinition',
    kind: 'CustomResourceDefinition',
    listKind: 'CustomResourceDefinitionList',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    subresources: ['status'],
    tracksGeneration: true,
    allowUnconditionalUpdate: false,
    strategy: crdStrategy,
    tableColumns: CRD_COLUMNS,
  },
];

export const CRD_RESOURCE = 'customresourcedefinitions.apiextensions.k8s.io';
export const NAMESPACE_RESOURCE = 'namespaces';
