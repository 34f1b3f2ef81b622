/**
 * Running one webhook's handler for one review: a deadline (the webhook's, shortened to fit the API server's own
 * `?timeout=`), isolation (a throw, a bad answer or a timeout never escapes), the webhook's failurePolicy for those
 * failures, and the AdmissionResponse the API server expects (base64 JSON patch, status for denials).
 */
import type { Cluster, ClusterName, Logger } from '@multicluster-runtime/core';
import type { AdmissionRequest, AdmissionResponse } from '../admission/types.js';
import type { AdmissionContext, AdmissionResult, AdmissionWebhook } from '../handlers/types.js';
import type { HandlerFailure, ReviewResult } from '../metrics/webhook-metrics.js';

export interface ReviewInput {
  readonly webhook: AdmissionWebhook;
  readonly name: string;
  readonly request: AdmissionRequest;
  readonly clusterName: ClusterName;
  readonly cluster: Cluster;
  readonly timeoutMs: number;
  /** Aborts when the server gives up on in-flight reviews (hard stop). */
  readonly stop: AbortSignal;
  readonly logger: Logger;
}

export interface ReviewOutcome {
  readonly response: AdmissionResponse;
  readonly result: ReviewResult;
  readonly failure: HandlerFailure | undefined;
}

/** The API server's `?timeout=10s` (Go duration in whole seconds, as it sends it), in ms; undefined if absent. */
export function apiServerTimeoutMs(query: URLSearchParams): number | undefined {
  const m = /^(\d+)s$/.exec(query.get('timeout') ?? '');
  return m ? Number(m[1]) * 1000 : undefined;
}

class HandlerTimeout extends Error {
  override name = 'HandlerTimeout';
}

function checkResult(r: unknown): AdmissionResult {
  if (!r || typeof r !== 'object' || typeof (r as AdmissionResult).allowed !== 'boolean')
    throw new TypeError('the handler returned no AdmissionResult ({ allowed: boolean, … })');
  const res = r as AdmissionResult;
  if (res.patch !== undefined && !Array.isArray(res.patch))
    throw new TypeError('the handler returned a patch that is not a list of operations');
  if (res.warnings !== undefined && (!Array.isArray(res.warnings) || res.warnings.some((w) => typeof w !== 'string')))
    throw new TypeError('the handler returned warnings that are not strings');
  return res;
}

function toResponse(uid: string, r: AdmissionResult): AdmissionResponse {
  const out: AdmissionResponse = { uid, allowed: r.allowed };
  if (!r.allowed) {
    out.status = { status: 'Failure', code: r.code ?? 403, message: r.message ?? '' };
    if (r.reason) out.status.reason = r.reason;
  }
  if (r.allowed && r.patch?.length) {
    out.patch = Buffer.from(JSON.stringify(r.patch)).toString('base64');
    out.patchType = 'JSONPatch';
  }
  if (r.warnings?.length) out.warnings = [...r.warnings];
  if (r.auditAnnotations && Object.keys(r.auditAnnotations).length) out.auditAnnotations = { ...r.auditAnnotations };
  return out;
}

/** Runs the handler; always resolves. */
export async function runReview(input: ReviewInput): Promise<ReviewOutcome> {
  const { request, name } = input;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onStop = (): void => {};
  const deadline = new Promise<never>((_, reject) => {
    const giveUp = (err: Error): void => {
      controller.abort(err);
      reject(err);
    };
    timer = setTimeout(() => giveUp(new HandlerTimeout(`did not answer within ${input.timeoutMs} ms`)), input.timeoutMs);
    onStop = () => giveUp(new HandlerTimeout('the webhook server stopped before the handler answered'));
    if (input.stop.aborted) onStop();
    else input.stop.addEventListener('abort', onStop, { once: true });
  });
  const ctx: AdmissionContext = {
    request,
    clusterName: input.clusterName,
    cluster: input.cluster,
    signal: controller.signal,
    logger: input.logger,
    webhook: name,
  };
  try {
    const result = checkResult(await Promise.race([Promise.resolve().then(() => input.webhook.handle(ctx)), deadline]));
    return { response: toResponse(request.uid, result), result: result.allowed ? 'allowed' : 'denied', failure: undefined };
  } catch (err) {
    const failure: HandlerFailure = err instanceof HandlerTimeout ? 'timeout' : 'error';
    const why = err instanceof Error ? err.message : String(err);
    input.logger.error('admission handler failed', err, { operation: request.operation, name: request.name, namespace: request.namespace });
    const failOpen = input.webhook.options.failurePolicy === 'Ignore';
    const response: AdmissionResponse = failOpen
      ? { uid: request.uid, allowed: true, warnings: [`admission webhook ${JSON.stringify(name)} failed and was ignored: ${why}`] }
      : {
          uid: request.uid,
          allowed: false,
          status: { status: 'Failure', code: 500, reason: 'InternalError', message: `webhook ${JSON.stringify(name)} failed: ${why}` },
        };
    return { response, result: 'error', failure };
  } finally {
    clearTimeout(timer);
    input.stop.removeEventListener('abort', onStop);
  }
}
