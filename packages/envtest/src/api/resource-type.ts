/**
 * What the server knows about one served resource: names for discovery, scope, subresources, and the strategy
 * (defaults, validation, update rules) that differs between built-ins and custom resources.
 */
import type { StoredObject } from '../storage/types.js';
import type { FieldError } from './field-error.js';

export type Verb = 'create' | 'delete' | 'deletecollection' | 'get' | 'list' | 'patch' | 'update' | 'watch';

export const ALL_VERBS: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** A CRD's `subresources.scale`: dotted JSON paths into the object (`.spec.replicas`). */
export interface ScalePaths {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  /** A string field holding the selector in its text form, or (built-ins) `.spec.selector` as a LabelSelector or map. */
  readonly labelSelectorPath?: string;
}

/** What a kind's rules may read besides the object: the other objects of its resource in the same cluster. */
export interface StrategyContext {
  /** Every object of this resource stored in the cluster now, in every namespace (the object being written included). */
  siblings(): readonly StoredObject[];
  /** Every object of another resource (`priorityclasses.scheduling.k8s.io`) stored in the cluster now. */
  objectsOf(resource: string): readonly StoredObject[];
}

/** Kind-specific server rules (the registry strategy and the admission plugins a default kube-apiserver runs). */
export interface ResourceStrategy {
  /** Defaults and server-side rewrites on create (e.g. Secret stringData, Namespace phase, a Service's cluster IP). */
  prepareForCreate?(obj: StoredObject, ctx: StrategyContext): void;
  /** Rewrites on update through the main endpoint (e.g. keep Namespace spec.finalizers, a Service's allocations). */
  prepareForUpdate?(obj: StoredObject, old: StoredObject, ctx: StrategyContext): void;
  /** Type-specific validation on create and update. */
  validate?(obj: StoredObject, old: StoredObject | undefined, ctx: StrategyContext): FieldError[];
}

/** A JSON-schema-ish structural schema (the subset used for pruning and defaulting). */
export interface StructuralSchema {
  type?: string;
  properties?: Record<string, StructuralSchema>;
  items?: StructuralSchema;
  additionalProperties?: StructuralSchema | boolean;
  default?: unknown;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
}

/** A CRD additionalPrinterColumn. */
export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  format?: string;
  description?: string;
  priority?: number;
}

/** A built-in type's Table column (kube's per-type printers), computed from the object. */
export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'date';
  value(obj: Record<string, unknown>): unknown;
}

/** Which rule a kind's names follow: DNS-1123 subdomain (most), label (Namespaces) or path segment (RBAC). */
export type NameRule = 'subdomain' | 'label' | 'pathSegment';

export interface ResourceType {
  readonly group: string;
  /** Served versions, preferred first. */
  readonly versions: readonly string[];
  readonly resource: string;
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly namespaced: boolean;
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly verbs: readonly Verb[];
  /** Subresources besides the main endpoint, e.g. ['status'] or ['status', 'finalize']. */
  readonly subresources: readonly string[];
  /** Where the `scale` subresource reads and writes (workloads, and CRDs that declare `subresources.scale`). */
  readonly scale?: ScalePaths;
  /** Custom resource semantics: merge/JSON/apply patches only (SMP is 415), update needs a resourceVersion. */
  readonly custom: boolean;
  /**
   * Whether metadata.generation is maintained (CRs, CRDs, the kinds whose Go strategy does): set to 1 on create and
   * raised by an update that changes anything outside metadata (and status, where it has its own endpoint), or
   * `'create-only'`: set to 1 and never raised (PriorityClass).
   */
  readonly tracksGeneration: boolean | 'create-only';
  /** Metadata whose change raises the generation too (a Deployment's annotations, an EndpointSlice's labels). */
  readonly generationFollows?: 'annotations' | 'labels';
  readonly allowCreateOnUpdate: boolean;
  readonly allowUnconditionalUpdate: boolean;
  /** DELETE answers with the object instead of a Success Status (ServiceAccount, Pod). */
  readonly returnDeletedObject: boolean;
  /**
   * The rule names follow (default `subdomain`, DNS-1123): `label` for Namespaces, `pathSegment` for RBAC roles and
   * bindings (`system:auth-delegator`).
   */
  readonly nameRule?: NameRule;
  readonly strategy?: ResourceStrategy;
  /** Table columns after Name for built-ins (default: Age). */
  readonly tableColumns?: readonly TableColumn[];
  /** Per version, a CRD's additionalPrinterColumns for Table output (CRs only). */
  readonly printerColumns?: Readonly<Record<string, readonly PrinterColumn[] | undefined>>;
  /** Per version, the structural schema used to prune unknown fields and apply defaults (CRs only). */
  readonly schemas?: Readonly<Record<string, StructuralSchema | undefined>>;
}

/** The store's name for a resource: `configmaps`, `leases.coordination.k8s.io`. */
export function storageResource(t: Pick<ResourceType, 'group' | 'resource'>): string {
  return t.group ? `${t.resource}.${t.group}` : t.resource;
}

export function groupVersion(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

export function hasStatus(t: ResourceType): boolean {
  return t.subresources.includes('status');
}
