/**
 * Running a write through the webhooks registered in its logical cluster, in kube-apiserver's order: mutating
 * webhooks one after another (configurations by name, webhooks in order, each seeing the previous one's patch), then
 * validating webhooks concurrently. Denials become kube-apiserver's Status errors; call failures follow each
 * webhook's failurePolicy; webhook warnings reach the client's `Warning` headers.
 */
import { randomUUID } from 'node:crypto';
import { NAMESPACE_RESOURCE } from '../../api/builtin-resources.js';
import { applyJsonPatch } from '../../api/patch/json-patch.js';
import { StatusError, badRequest, internalError } from '../../api/status-error.js';
import type { UserInfo } from '../../auth/authenticator.js';
import type { ApiState } from '../api-state.js';
import { callWebhook, WebhookCallError, type WebhookVerdict } from './call.js';
import { ADMISSION_GROUP, MUTATING_RESOURCE, VALIDATING_RESOURCE } from '../../api/webhook-configurations.js';
import { webhookMatches, type AdmissionAttributes } from './match.js';

/** Everything about a write that webhooks are told besides the objects. */
export interface AdmissionRequestInfo {
  readonly cluster: string;
  readonly user: UserInfo;
  readonly dryRun: boolean;
  /** CreateOptions / UpdateOptions / PatchOptions / DeleteOptions, as the review's `options`. */
  readonly options: Record<string, unknown>;
  /** Where webhook warnings go. */
  readonly warnings: string[] | undefined;
}

type Webhook = Record<string, unknown>;

function configured(state: ApiState, cluster: string, resource: string): Webhook[] {
  const items = state.store.snapshot({ resource: `${resource}.${ADMISSION_GROUP}`, cluster }).items;
  return items.flatMap((i) => (Array.isArray(i.object['webhooks']) ? (i.object['webhooks'] as Webhook[]) : []));
}

/** True when the logical cluster has any webhook configuration (the fast path skips admission otherwise). */
export function hasWebhooks(state: ApiState, cluster: string): boolean {
  return configured(state, cluster, VALIDATING_RESOURCE).length + configured(state, cluster, MUTATING_RESOURCE).length > 0;
}

function matching(state: ApiState, info: AdmissionRequestInfo, resource: string, a: AdmissionAttributes): Webhook[] {
  const labelsOf = (ns: string): Record<string, string> | undefined =>
    (state.store.get({ cluster: info.cluster, resource: NAMESPACE_RESOURCE, namespace: '', name: ns })?.metadata['labels'] as
      Record<string, string> | undefined) ?? undefined;
  return configured(state, info.cluster, resource).filter((w) => webhookMatches(w, a, labelsOf));
}

function review(
  a: AdmissionAttributes,
  info: AdmissionRequestInfo,
): { apiVersion: string; kind: string; request: { uid: string } & Record<string, unknown> } {
  const gvk = { group: a.group, version: a.version, kind: a.kind };
  const gvr = { group: a.group, version: a.version, resource: a.resource };
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: randomUUID(),
      kind: gvk,
      resource: gvr,
      ...(a.subresource ? { subResource: a.subresource, requestSubResource: a.subresource } : {}),
      requestKind: gvk,
      requestResource: gvr,
      name: a.name,
      ...(a.namespace ? { namespace: a.namespace } : {}),
      operation: a.operation,
      userInfo: { username: info.user.name, ...(info.user.uid ? { uid: info.user.uid } : {}), groups: [...info.user.groups] },
      object: a.object ?? null,
      oldObject: a.oldObject ?? null,
      dryRun: info.dryRun,
      options: info.options,
    },
  };
}

/** kube-apiserver's ToStatusErr: the webhook's denial as the Status the client gets. */
function denial(a: AdmissionAttributes, webhook: string, status: WebhookVerdict['status']): StatusError {
  const code = status?.code || 403;
  const deniedBy = `admission webhook ${JSON.stringify(webhook)} denied the request`;
  const why = status?.message
    ? `${deniedBy}: ${status.message}`
    : status?.reason
      ? `${deniedBy}: ${status.reason}`
      : `${deniedBy} without explanation`;
  const name = a.name || 'Unknown';
  const gr = a.group ? `${a.resource}.${a.group}` : a.resource;
  const prefix = code === 500 ? 'Internal error occurred' : `${gr} ${JSON.stringify(name)} is forbidden`;
  const reason = status?.reason || (code === 500 ? 'InternalError' : 'Forbidden');
  const details = code === 500 ? { causes: [{ message: why }] } : { name, group: a.group, kind: a.resource };
  return new StatusError(code, reason, `${prefix}: ${why}`, details);
}

async function call(
  webhook: Webhook,
  a: AdmissionAttributes,
  info: AdmissionRequestInfo,
  mutating: boolean,
  signal: AbortSignal,
): Promise<WebhookVerdict | undefined> {
  const name = String(webhook['name']);
  if (info.dryRun && webhook['sideEffects'] !== 'None' && webhook['sideEffects'] !== 'NoneOnDryRun')
    throw badRequest(`admission webhook ${JSON.stringify(name)} does not support dry run`);
  try {
    const verdict = await callWebhook(webhook, review(a, info), mutating, signal);
    info.warnings?.push(...verdict.warnings);
    if (!verdict.allowed) throw denial(a, name, verdict.status);
    return verdict;
  } catch (err) {
    if (!(err instanceof WebhookCallError)) throw err;
    if (webhook['failurePolicy'] === 'Ignore') return undefined;
    throw internalError(`failed calling webhook ${JSON.stringify(name)}: ${err.message}`);
  }
}

/** Runs the mutating webhooks; resolves with the object as they left it (unchanged without patches). */
export async function mutate(
  state: ApiState,
  a: AdmissionAttributes,
  info: AdmissionRequestInfo,
  signal: AbortSignal,
): Promise<Record<string, unknown> | undefined> {
  let object = a.object;
  for (const webhook of matching(state, info, MUTATING_RESOURCE, a)) {
    const verdict = await call(webhook, { ...a, object }, info, true, signal);
    if (!verdict?.patch?.length) continue;
    if (object === undefined)
      throw internalError(
        `admission webhook ${JSON.stringify(webhook['name'])} attempted to modify the object, which is not supported for this operation`,
      );
    try {
      object = applyJsonPatch(object, verdict.patch) as Record<string, unknown>;
    } catch (err) {
      throw internalError((err as Error).message);
    }
  }
  return object;
}

/** Runs the validating webhooks concurrently; throws the first denial (in configuration order). */
export async function validate(state: ApiState, a: AdmissionAttributes, info: AdmissionRequestInfo, signal: AbortSignal): Promise<void> {
  const results = await Promise.allSettled(matching(state, info, VALIDATING_RESOURCE, a).map((w) => call(w, a, info, false, signal)));
  for (const r of results) if (r.status === 'rejected') throw r.reason;
}
