/**
 * Kubernetes `Status` failures as a throwable error. Every failure a handler can hit is a StatusError built here, so
 * codes, reasons, messages and details follow apimachinery's pkg/api/errors templates exactly in one place.
 */
import type { FieldError } from './field-error.js';
import { formatFieldErrors } from './field-error.js';

/** metav1.StatusCause: its Go field `Type` is serialized as `reason`. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { continue?: string };
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** A group-qualified resource, e.g. {group:'', resource:'configmaps'}. */
export interface GroupResource {
  group: string;
  resource: string;
}

export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
    /** ListMeta of the Status, e.g. a fresh `continue` token on an expired one. */
    readonly listMeta?: { continue?: string },
  ) {
    super(message);
    this.name = 'StatusError';
  }

  /** Field order matches the real server's JSON. */
  toStatus(): StatusBody {
    const body: StatusBody = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: { ...this.listMeta },
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    // Go's StatusReasonUnknown is the empty reason, which its JSON leaves out.
    if (!this.reason) delete body.reason;
    if (this.details) {
      const { code } = body;
      delete (body as Partial<StatusBody>).code;
      body.details = this.details;
      body.code = code;
    }
    return body;
  }
}

export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${qualifiedResource(gr)} "${name}" not found`, { name, group: gr.group, kind: gr.resource });
}

/** The 404 for a path under an API root that names no resource the server serves. */
export function resourceNotFound(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${qualifiedResource(gr)} "${name}" already exists`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

export function generateNameExhausted(gr: GroupResource, name: string): StatusError {
  return new StatusError(
    409,
    'AlreadyExists',
    `${qualifiedResource(gr)} "${name}" already exists, the server was not able to generate a unique name for the object`,
    { name, group: gr.group, kind: gr.resource, retryAfterSeconds: 1 },
  );
}

export function conflict(gr: GroupResource, name: string, why: string): StatusError {
  return new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${why}`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

export const OPTIMISTIC_LOCK_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';

/** 422 Invalid. `kind` is the Kind (not the resource), qualified by group: `Widget.example.com "x" is invalid: …`. */
export function invalid(group: string, kind: string, name: string, errors: readonly FieldError[]): StatusError {
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  return new StatusError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${formatFieldErrors(errors)}`, {
    name,
    group,
    kind,
    causes: errors.map((e) => ({ reason: e.type, message: e.detailMessage(), field: e.field })),
  });
}

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

export function unauthorized(): StatusError {
  return new StatusError(401, 'Unauthorized', 'Unauthorized');
}

export function forbidden(gr: GroupResource, name: string, why: string): StatusError {
  const subject = name === '' ? qualifiedResource(gr) : `${qualifiedResource(gr)} "${name}"`;
  return new StatusError(403, 'Forbidden', `${subject} is forbidden: ${why}`, { name, group: gr.group, kind: gr.resource });
}

export function methodNotSupported(gr: GroupResource, verb: string, suffix = ''): StatusError {
  return new StatusError(405, 'MethodNotAllowed', `${verb} is not supported on resources of kind "${qualifiedResource(gr)}"${suffix}`, {
    group: gr.group,
    kind: gr.resource,
  });
}

export function unsupportedMediaType(accepted: readonly string[]): StatusError {
  return new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}

export function expired(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

export function tooLargeResourceVersion(requested: number, current: number): StatusError {
  return new StatusError(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: `Too large resource version` }],
    retryAfterSeconds: 1,
  });
}

export function requestEntityTooLarge(limit: number): StatusError {
  return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
}

export function internalError(message: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
}

/** The storage layer's "unknown" 500, e.g. `resourceVersion should not be set on objects to be created`. */
export function unknownServerError(message: string): StatusError {
  return new StatusError(500, 'Unknown', message);
}

export function serviceUnavailable(message: string): StatusError {
  return new StatusError(503, 'ServiceUnavailable', message);
}
