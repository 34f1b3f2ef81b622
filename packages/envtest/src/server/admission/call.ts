/**
 * One call to one admission webhook, as kube-apiserver makes it: POST an AdmissionReview v1 to the URL with
 * `?timeout=<n>s`, trust only the configuration's caBundle (system roots without one), give up after timeoutSeconds,
 * and check the answer the way the real server does (envelope, uid, patch type). Every way the call can go wrong is
 * a WebhookCallError, which the dispatcher turns into the failurePolicy's verdict.
 */
import { request } from 'node:https';

/** The call failed (unreachable, timed out, bad answer): failurePolicy decides. */
export class WebhookCallError extends Error {
  override name = 'WebhookCallError';
}

export interface WebhookVerdict {
  allowed: boolean;
  status?: { code?: number; reason?: string; message?: string };
  patch?: unknown[];
  warnings: string[];
}

const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

function post(url: URL, body: string, ca: string | undefined, signal: AbortSignal): Promise<{ code: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        signal,
        ...(ca ? { ca } : {}),
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_RESPONSE_BYTES) req.destroy(new Error('the webhook response is too large'));
          else chunks.push(c);
        });
        res.on('end', () => resolve({ code: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function caOf(clientConfig: Record<string, unknown>): string | undefined {
  const b = clientConfig['caBundle'];
  return typeof b === 'string' && b !== '' ? Buffer.from(b, 'base64').toString('utf8') : undefined;
}

/** Calls the webhook; resolves with its verdict or throws WebhookCallError. */
export async function callWebhook(
  webhook: Record<string, unknown>,
  review: { request: { uid: string } },
  mutating: boolean,
  parent: AbortSignal,
): Promise<WebhookVerdict> {
  const clientConfig = (webhook['clientConfig'] ?? {}) as Record<string, unknown>;
  if (typeof clientConfig['url'] !== 'string')
    throw new WebhookCallError(
      'failed to call webhook: service references are not supported by the in-memory server (use clientConfig.url)',
    );
  const seconds = typeof webhook['timeoutSeconds'] === 'number' ? webhook['timeoutSeconds'] : 10;
  const url = new URL(clientConfig['url']);
  url.searchParams.set('timeout', `${seconds}s`);
  const shown = `Post ${JSON.stringify(url.toString())}`;
  let answer: { code: number; text: string };
  try {
    answer = await post(url, JSON.stringify(review), caOf(clientConfig), AbortSignal.any([parent, AbortSignal.timeout(seconds * 1000)]));
  } catch (err) {
    const e = err as Error;
    const why = e.name === 'AbortError' || e.name === 'TimeoutError' ? 'context deadline exceeded' : e.message;
    throw new WebhookCallError(`failed to call webhook: ${shown}: ${why}`);
  }
  if (answer.code < 200 || answer.code > 299)
    throw new WebhookCallError(
      `failed to call webhook: the server responded with the status code ${answer.code}: ${answer.text.slice(0, 512)}`,
    );
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(answer.text) as Record<string, unknown>;
  } catch (err) {
    throw new WebhookCallError(`received invalid webhook response: ${(err as Error).message}`);
  }
  const invalid = (why: string): WebhookCallError => new WebhookCallError(`received invalid webhook response: ${why}`);
  if (doc['apiVersion'] !== 'admission.k8s.io/v1' || doc['kind'] !== 'AdmissionReview')
    throw invalid(
      `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${String(doc['apiVersion'])}, Kind=${String(doc['kind'])}`,
    );
  const res = doc['response'] as Record<string, unknown> | undefined;
  if (!res || typeof res !== 'object') throw invalid('webhook response was absent');
  if (res['uid'] !== review.request.uid)
    throw invalid(`expected response.uid=${JSON.stringify(review.request.uid)}, got ${JSON.stringify(res['uid'] ?? '')}`);
  const verdict: WebhookVerdict = {
    allowed: res['allowed'] === true,
    warnings: Array.isArray(res['warnings']) ? res['warnings'].filter((w): w is string => typeof w === 'string') : [],
  };
  if (res['status'] && typeof res['status'] === 'object') verdict.status = res['status'];
  const patch = res['patch'];
  if (typeof patch === 'string' && patch !== '') {
    if (!mutating) throw invalid('validating webhooks may not return patches');
    if (res['patchType'] === undefined) throw invalid('webhook returned response.patch but not response.patchType');
    if (res['patchType'] !== 'JSONPatch')
      throw invalid(`webhook returned invalid response.patchType of ${JSON.stringify(res['patchType'])}`);
    try {
      const ops = JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as unknown;
      if (!Array.isArray(ops)) throw new Error('not a list of operations');
      verdict.patch = ops;
    } catch (err) {
      throw new WebhookCallError(`received undecodable patch in webhook response: ${(err as Error).message}`);
    }
  }
  return verdict;
}
