/** The keeper's options, their validation, and the configuration objects they describe for one member. */
import type { KubeObject, Logger } from '@multicluster-runtime/core';
import { WebhookOptionsError } from '../errors.js';
import type { WebhookConfigurationSpec, WebhookSpec } from './types.js';

/**
 * Options of {@link WebhookConfigurationKeeper}: the server's URL, the configurations to write and the CA file.
 */
export interface KeeperOptions {
  /** The server's base URL as members reach it, e.g. "https://webhooks.example.com:9443". */
  url: string;
  validating?: WebhookConfigurationSpec;
  mutating?: WebhookConfigurationSpec;
  /** A PEM file holding the CA members must trust; re-read when it changes. */
  caFile?: string;
  /** The CA as PEM text (when it never changes). */
  caBundle?: string;
  /** Server-side apply field manager. Default "multicluster-runtime-webhook". */
  fieldManager?: string;
  logger?: Logger;
}

export type CheckedKeeperOptions = KeeperOptions & { fieldManager: string };

const API_VERSION = 'admissionregistration.k8s.io/v1';

/** Array.isArray without widening a readonly array to any[]. */
function isList<T>(v: readonly T[] | undefined): v is readonly T[] {
  return Array.isArray(v);
}

function checkSpec(spec: WebhookConfigurationSpec | undefined, which: string): void {
  if (spec === undefined) return;
  if (!spec.name) throw new WebhookOptionsError(`${which}.name is required`);
  if (!isList(spec.webhooks) || spec.webhooks.length === 0)
    throw new WebhookOptionsError(`${which}.webhooks must list at least one webhook`);
  const names = new Set<string>();
  for (const w of spec.webhooks) {
    if (!w.name || w.name.split('.').length < 3)
      throw new WebhookOptionsError(`${which}: webhook name ${JSON.stringify(w.name)} must be fully qualified (e.g. vwidget.example.com)`);
    if (names.has(w.name)) throw new WebhookOptionsError(`${which}: webhook name ${w.name} is used twice`);
    names.add(w.name);
    if (typeof w.path !== 'string' || !w.path.startsWith('/'))
      throw new WebhookOptionsError(`${which}: webhook ${w.name} needs a path starting with "/"`);
    if (!isList(w.rules)) throw new WebhookOptionsError(`${which}: webhook ${w.name} needs rules`);
  }
}

export function checkKeeperOptions(o: KeeperOptions): CheckedKeeperOptions {
  if (!o || typeof o !== 'object') throw new WebhookOptionsError('keeper options are required');
  let url: URL;
  try {
    url = new URL(o.url);
  } catch {
    throw new WebhookOptionsError(`url must be an absolute URL, got ${JSON.stringify(o.url)}`);
  }
  if (url.protocol !== 'https:') throw new WebhookOptionsError('url must use https (the API server calls webhooks over TLS only)');
  if (url.search || url.hash) throw new WebhookOptionsError('url must not carry a query or fragment');
  if (!o.validating && !o.mutating) throw new WebhookOptionsError('give validating and/or mutating webhook configurations to keep');
  checkSpec(o.validating, 'validating');
  checkSpec(o.mutating, 'mutating');
  if ((o.caFile === undefined) === (o.caBundle === undefined)) throw new WebhookOptionsError('give exactly one of caFile and caBundle');
  return { ...o, url: o.url.replace(/\/+$/, ''), fieldManager: o.fieldManager ?? 'multicluster-runtime-webhook' };
}

/** The kinds and names the keeper owns in each member. */
export function configurationKind(o: KeeperOptions): { apiVersion: string; kind: string; name: string }[] {
  const out: { apiVersion: string; kind: string; name: string }[] = [];
  if (o.validating) out.push({ apiVersion: API_VERSION, kind: 'ValidatingWebhookConfiguration', name: o.validating.name });
  if (o.mutating) out.push({ apiVersion: API_VERSION, kind: 'MutatingWebhookConfiguration', name: o.mutating.name });
  return out;
}

function renderWebhook(w: WebhookSpec, caBundle: string, urlFor: (path: string) => string, mutating: boolean): Record<string, unknown> {
  const { path, reinvocationPolicy, ...rest } = w;
  return {
    ...rest,
    clientConfig: { url: urlFor(path), caBundle: Buffer.from(caBundle).toString('base64') },
    sideEffects: w.sideEffects ?? 'None',
    admissionReviewVersions: w.admissionReviewVersions ?? ['v1'],
    ...(mutating && reinvocationPolicy ? { reinvocationPolicy } : {}),
  };
}

/** The configurations for one member, whose webhooks are reached at `urlFor(path)`. */
export function buildConfigurations(o: CheckedKeeperOptions, caBundle: string, urlFor: (path: string) => string): KubeObject[] {
  const labels = { 'app.kubernetes.io/managed-by': o.fieldManager };
  const out: KubeObject[] = [];
  for (const [spec, kind, mutating] of [
    [o.validating, 'ValidatingWebhookConfiguration', false],
    [o.mutating, 'MutatingWebhookConfiguration', true],
  ] as const)
    if (spec)
      out.push({
        apiVersion: API_VERSION,
        kind,
        metadata: { name: spec.name, labels },
        webhooks: spec.webhooks.map((w) => renderWebhook(w, caBundle, urlFor, mutating)),
      });
  return out;
}
