/**
 * Reading an AdmissionReview v1 from an untrusted body and writing the answer. Everything a request must carry for
 * a handler to run safely is checked here, so handlers see a well-formed request or the client gets a clear 400.
 */
import { BadReviewError } from '../errors.js';
import {
  ADMISSION_API_VERSION,
  ADMISSION_REVIEW_KIND,
  type AdmissionRequest,
  type AdmissionResponse,
  type AdmissionReview,
  type Operation,
} from './types.js';

const OPERATIONS: readonly Operation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function optionalString(req: Record<string, unknown>, field: string): void {
  if (req[field] !== undefined && req[field] !== null && typeof req[field] !== 'string')
    throw new BadReviewError(`request.${field} must be a string`);
}

function optionalObject(req: Record<string, unknown>, field: string): void {
  if (req[field] !== undefined && req[field] !== null && !isRecord(req[field]))
    throw new BadReviewError(`request.${field} must be an object`);
}

/** Parses the body of a review request; throws BadReviewError saying what is wrong. */
export function parseAdmissionReview(body: Buffer): AdmissionRequest {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new BadReviewError(`the body is not JSON: ${(err as Error).message}`);
  }
  if (!isRecord(doc)) throw new BadReviewError('the body is not a JSON object');
  if (doc['kind'] !== ADMISSION_REVIEW_KIND)
    throw new BadReviewError(`expected kind ${ADMISSION_REVIEW_KIND}, got ${JSON.stringify(doc['kind'] ?? null)}`);
  if (doc['apiVersion'] !== ADMISSION_API_VERSION)
    throw new BadReviewError(
      `unsupported AdmissionReview apiVersion ${JSON.stringify(doc['apiVersion'] ?? null)}: only ${ADMISSION_API_VERSION} is served (list "v1" in admissionReviewVersions)`,
    );
  const req = doc['request'];
  if (!isRecord(req)) throw new BadReviewError('the AdmissionReview has no request');
  if (typeof req['uid'] !== 'string' || req['uid'] === '') throw new BadReviewError('request.uid is missing');
  if (!OPERATIONS.includes(req['operation'] as Operation))
    throw new BadReviewError(`request.operation must be one of ${OPERATIONS.join(', ')}, got ${JSON.stringify(req['operation'] ?? null)}`);
  for (const field of ['kind', 'resource'] as const) {
    const v = req[field];
    if (!isRecord(v) || typeof v['version'] !== 'string' || typeof v['group'] !== 'string')
      throw new BadReviewError(`request.${field} must name a group and version`);
  }
  for (const field of ['name', 'namespace', 'subResource']) optionalString(req, field);
  for (const field of ['object', 'oldObject', 'options', 'userInfo']) optionalObject(req, field);
  for (const field of ['object', 'oldObject'] as const) {
    const obj = req[field];
    if (isRecord(obj) && obj['metadata'] !== undefined && !isRecord(obj['metadata']))
      throw new BadReviewError(`request.${field}.metadata must be an object`);
  }
  const userInfo = isRecord(req['userInfo']) ? req['userInfo'] : {};
  const extra = userInfo['extra'];
  if (extra !== undefined && extra !== null) {
    if (!isRecord(extra)) throw new BadReviewError('request.userInfo.extra must be an object');
    for (const [k, v] of Object.entries(extra))
      if (!Array.isArray(v) || v.some((s) => typeof s !== 'string'))
        throw new BadReviewError(`request.userInfo.extra[${JSON.stringify(k)}] must be a list of strings`);
  }
  return { ...(req as unknown as AdmissionRequest), userInfo };
}

/** The answer envelope: the same apiVersion and kind as the request, as the API server requires. */
export function admissionReviewResponse(response: AdmissionResponse): AdmissionReview {
  return { apiVersion: ADMISSION_API_VERSION, kind: ADMISSION_REVIEW_KIND, response };
}
