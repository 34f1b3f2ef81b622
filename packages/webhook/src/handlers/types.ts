/**
 * What a webhook author writes: a defaulter, a validator (controller-runtime's CustomDefaulter/CustomValidator
 * shapes, camelCased) or a raw handler, each given the review's fleet member and its engaged Cluster.
 */
import type { Cluster, ClusterName, KubeObject, Logger } from '@multicluster-runtime/core';
import type { AdmissionRequest } from '../admission/types.js';

/** One RFC 6902 operation. */
export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: unknown;
  from?: string;
}

/** Everything a handler knows about one review. Carries `clusterName`, so `mgr.clusterFromContext(ctx)` works too. */
export interface AdmissionContext {
  readonly request: AdmissionRequest;
  /** The fleet member the review came from ("" is the local cluster). */
  readonly clusterName: ClusterName;
  /** That member's engaged Cluster: read from its cache or client. */
  readonly cluster: Cluster;
  /** Aborts when the review times out or the server stops waiting; pass it to every call the handler makes. */
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** The webhook's name (metrics, logs). */
  readonly webhook: string;
}

/** A handler's answer. A denial's `message` is what the user sees after the API server's prefix. */
export interface AdmissionResult {
  allowed: boolean;
  /** Denials: the HTTP code the API server answers with (default 403). */
  code?: number;
  /** Denials: a machine-readable metav1 StatusReason, e.g. "Forbidden" or "Invalid". */
  reason?: string;
  /** Denials: why. */
  message?: string;
  warnings?: string[];
  /** Mutations: operations on the request's object. */
  patch?: JsonPatchOperation[];
  auditAnnotations?: Record<string, string>;
}

/** A raw handler: anything controller-runtime's admission.Handler does. */
export type AdmissionHandler = (ctx: AdmissionContext) => AdmissionResult | Promise<AdmissionResult>;

/**
 * Fills in defaults by mutating `obj` in place; the server computes the JSON patch. Not called for DELETE. Throwing
 * is a handler failure (answered by the webhook's failurePolicy); return `denied(...)` to reject on purpose.
 */
export interface Defaulter<T extends KubeObject = KubeObject> {
  /** Sets defaults on `obj` in place (the response patches the difference); may return warnings. */
  default(ctx: AdmissionContext, obj: T): void | ValidationResult | Promise<void | ValidationResult>;
}

/** A validator's answer; `undefined` means allowed. Build it with `allowed(...)` / `denied(...)`. */
export interface ValidationResult {
  allowed: boolean;
  /** Why the request is denied (shown to the user). */
  reason?: string;
  warnings?: string[];
  /** HTTP code of a denial (default 403). */
  code?: number;
}

/**
 * Checks objects; each method is optional (a missing one allows). Throwing is a handler failure (answered by the
 * webhook's failurePolicy), not a denial: return `denied(reason)` to reject.
 */
export interface Validator<T extends KubeObject = KubeObject> {
  /** Judges an object being created: throw or return `{ allowed: false }` to deny; may return warnings. */
  validateCreate?(ctx: AdmissionContext, obj: T): void | ValidationResult | Promise<void | ValidationResult>;
  /** Judges an update from `oldObj` to `newObj`: throw or return `{ allowed: false }` to deny; may return warnings. */
  validateUpdate?(ctx: AdmissionContext, oldObj: T, newObj: T): void | ValidationResult | Promise<void | ValidationResult>;
  /** Gets the object being deleted (the request's oldObject). */
  validateDelete?(ctx: AdmissionContext, obj: T): void | ValidationResult | Promise<void | ValidationResult>;
}

/** What a throwing or timed-out handler answers: Fail denies (fail closed), Ignore allows with a warning (fail open). */
export type FailurePolicy = 'Fail' | 'Ignore';

/**
 * One webhook's name in metrics and logs, and how it answers when its handler fails or is too slow.
 */
export interface WebhookOptions {
  /** Name in metrics and logs. Default: the path it is registered under. */
  name?: string;
  /** Default 'Fail'. */
  failurePolicy?: FailurePolicy;
  /** How long the handler may run. Default: the server's `timeoutMs`. */
  timeoutMs?: number;
}

/** A handler with its options, ready to register on a server. */
export interface AdmissionWebhook {
  readonly type: 'mutating' | 'validating' | 'raw';
  readonly options: Readonly<WebhookOptions>;
  readonly handle: AdmissionHandler;
}
