/**
 * Which webhooks a write must go through, as kube-apiserver decides it: rules on operation, group, version,
 * resource (with the star, star-slash-star and resource-slash-subresource forms) and scope; namespaceSelector on the namespace's labels (the object's
 * own for a Namespace); objectSelector on the new or old object's labels. Writes to webhook configurations
 * themselves are never sent to webhooks, so a broken webhook can always be removed.
 */
import { LabelSelectorError, labelSelectorFromObject } from '@multicluster-runtime/apimachinery';
import { NAMESPACE_RESOURCE } from '../../api/builtin-resources.js';
import { ADMISSION_GROUP } from '../../api/webhook-configurations.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

/** What is being written, as webhooks see it. */
export interface AdmissionAttributes {
  readonly operation: AdmissionOperation;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  readonly kind: string;
  /** The namespace; for a Namespace object, its own name; "" for other cluster-scoped objects. */
  readonly namespace: string;
  readonly name: string;
  readonly object: Record<string, unknown> | undefined;
  readonly oldObject: Record<string, unknown> | undefined;
}

interface Rule {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
}

interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

const has = (list: string[] | undefined, v: string): boolean => !!list && (list.includes('*') || list.includes(v));

function resourceMatches(rule: Rule, a: AdmissionAttributes): boolean {
  return (rule.resources ?? []).some((r) => {
    const slash = r.indexOf('/');
    const [res, sub] = slash < 0 ? [r, ''] : [r.slice(0, slash), r.slice(slash + 1)];
    return (res === '*' || res === a.resource) && (sub === '*' || sub === a.subresource);
  });
}

function scopeMatches(rule: Rule, a: AdmissionAttributes): boolean {
  const isNamespace = a.group === '' && a.resource === NAMESPACE_RESOURCE;
  switch (rule.scope ?? '*') {
    case 'Namespaced':
      return !isNamespace && a.namespace !== '';
    case 'Cluster':
      return isNamespace || a.namespace === '';
    default:
      return true;
  }
}

export function ruleMatches(rule: Rule, a: AdmissionAttributes): boolean {
  return (
    has(rule.operations, a.operation) &&
    has(rule.apiGroups, a.group) &&
    has(rule.apiVersions, a.version) &&
    resourceMatches(rule, a) &&
    scopeMatches(rule, a)
  );
}

/** metav1.LabelSelector semantics: an empty selector matches everything; a malformed one matches nothing. */
export function selectorMatches(selector: Selector | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector) return true;
  try {
    return labelSelectorFromObject(selector).matches(labels);
  } catch (err) {
    if (err instanceof LabelSelectorError) return false;
    throw err;
  }
}

const labelsOf = (o: Record<string, unknown> | undefined): Record<string, string> | undefined =>
  (o?.['metadata'] as { labels?: Record<string, string> } | undefined)?.labels;

/**
 * Whether `webhook` applies to the write. `namespaceLabels` looks up a namespace's labels (undefined when it does
 * not exist).
 */
export function webhookMatches(
  webhook: Record<string, unknown>,
  a: AdmissionAttributes,
  namespaceLabels: (name: string) => Record<string, string> | undefined,
): boolean {
  if (a.group === ADMISSION_GROUP) return false;
  const rules = (webhook['rules'] as Rule[] | undefined) ?? [];
  if (!rules.some((r) => ruleMatches(r, a))) return false;
  const objectSelector = webhook['objectSelector'] as Selector | undefined;
  const objects = [a.object, a.oldObject].filter((o) => o !== undefined);
  if (!objects.some((o) => selectorMatches(objectSelector, labelsOf(o)))) return false;
  const nsSelector = webhook['namespaceSelector'] as Selector | undefined;
  const isNamespace = a.group === '' && a.resource === NAMESPACE_RESOURCE;
  if (isNamespace) return selectorMatches(nsSelector, labelsOf(a.object) ?? labelsOf(a.oldObject));
  if (a.namespace === '') return true;
  return selectorMatches(nsSelector, namespaceLabels(a.namespace));
}
