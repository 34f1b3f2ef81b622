/**
 * admissionregistration.k8s.io/v1 Validating/MutatingWebhookConfiguration as served resources: the defaults the
 * real server fills in and the validation that keeps a configuration callable, so what a client stores reads back
 * as it would from kube-apiserver and a broken one is refused with the same field errors.
 */
import { FieldError, forbiddenField, invalidValue, notSupported, required } from './field-error.js';
import type { ResourceStrategy, ResourceType, TableColumn } from './resource-type.js';
import { ALL_VERBS } from './resource-type.js';
import type { StoredObject } from '../storage/types.js';

export const ADMISSION_GROUP = 'admissionregistration.k8s.io';
export const VALIDATING_RESOURCE = 'validatingwebhookconfigurations';
export const MUTATING_RESOURCE = 'mutatingwebhookconfigurations';

type Webhook = Record<string, unknown>;

function webhooksOf(obj: StoredObject): Webhook[] {
  return Array.isArray(obj['webhooks']) ? (obj['webhooks'] as Webhook[]).filter((w) => w && typeof w === 'object') : [];
}

function setDefaults(obj: StoredObject, mutating: boolean): void {
  for (const w of webhooksOf(obj)) {
    w['failurePolicy'] ??= 'Fail';
    w['matchPolicy'] ??= 'Equivalent';
    w['namespaceSelector'] ??= {};
    w['objectSelector'] ??= {};
    w['timeoutSeconds'] ??= 10;
    if (mutating) w['reinvocationPolicy'] ??= 'Never';
    if (Array.isArray(w['rules']))
      for (const r of w['rules'] as Record<string, unknown>[]) if (r && typeof r === 'object') r['scope'] ??= '*';
  }
}

function validate(obj: StoredObject): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  webhooksOf(obj).forEach((w, i) => {
    const f = `webhooks[${i}]`;
    const name = w['name'];
    if (typeof name !== 'string' || name === '') errs.push(required(`${f}.name`, ''));
    else if (name.split('.').length < 3)
      errs.push(invalidValue(`${f}.name`, name, 'should be a domain with at least three segments separated by dots'));
    else if (names.has(name)) errs.push(new FieldError('FieldValueDuplicate', `${f}.name`, '', { v: name }));
    if (typeof name === 'string') names.add(name);
    const cc = (w['clientConfig'] ?? {}) as Record<string, unknown>;
    const hasUrl = typeof cc['url'] === 'string' && cc['url'] !== '';
    const hasService = cc['service'] !== undefined && cc['service'] !== null;
    if (hasUrl === hasService) errs.push(required(`${f}.clientConfig`, 'exactly one of url or service is required'));
    if (hasUrl) {
      let url: URL | undefined;
      try {
        url = new URL(cc['url'] as string);
      } catch {
        errs.push(invalidValue(`${f}.clientConfig.url`, cc['url'], 'host must be specified'));
      }
      if (url && url.protocol !== 'https:')
        errs.push(invalidValue(`${f}.clientConfig.url`, cc['url'], "'https' is the only allowed URL scheme"));
      if (url && (url.hash || url.username))
        errs.push(invalidValue(`${f}.clientConfig.url`, cc['url'], 'fragments and user info are not permitted'));
    }
    const side = w['sideEffects'];
    if (side === undefined) errs.push(required(`${f}.sideEffects`, 'must specify one of None, NoneOnDryRun'));
    else if (side !== 'None' && side !== 'NoneOnDryRun') errs.push(notSupported(`${f}.sideEffects`, side, ['None', 'NoneOnDryRun']));
    const versions = w['admissionReviewVersions'];
    if (!Array.isArray(versions) || versions.length === 0)
      errs.push(required(`${f}.admissionReviewVersions`, 'must specify one of v1, v1beta1'));
    else if (!versions.some((v) => v === 'v1' || v === 'v1beta1'))
      errs.push(invalidValue(`${f}.admissionReviewVersions`, versions, 'must include at least one of v1, v1beta1'));
    if (!['Fail', 'Ignore'].includes(w['failurePolicy'] as string))
      errs.push(notSupported(`${f}.failurePolicy`, w['failurePolicy'], ['Fail', 'Ignore']));
    const t = w['timeoutSeconds'];
    if (typeof t !== 'number' || t < 1 || t > 30)
      errs.push(invalidValue(`${f}.timeoutSeconds`, t, 'the timeout value must be between 1 and 30 seconds'));
    if (w['rules'] !== undefined && !Array.isArray(w['rules'])) errs.push(invalidValue(`${f}.rules`, w['rules'], 'must be a list'));
    (Array.isArray(w['rules']) ? (w['rules'] as Record<string, unknown>[]) : []).forEach((r, j) => {
      for (const key of ['operations', 'apiGroups', 'apiVersions', 'resources'])
        if (!Array.isArray(r?.[key]) || (r[key] as unknown[]).length === 0) errs.push(required(`${f}.rules[${j}].${key}`, ''));
      if (!['*', 'Cluster', 'Namespaced'].includes(r?.['scope'] as string))
        errs.push(notSupported(`${f}.rules[${j}].scope`, r?.['scope'], ['*', 'Cluster', 'Namespaced']));
    });
    if (w['matchConditions'] !== undefined)
      errs.push(forbiddenField(`${f}.matchConditions`, 'match conditions (CEL) are not supported by the in-memory server'));
  });
  return errs;
}

function strategy(mutating: boolean): ResourceStrategy {
  return {
    prepareForCreate: (obj) => setDefaults(obj, mutating),
    prepareForUpdate: (obj) => setDefaults(obj, mutating),
    validate: (obj) => validate(obj),
  };
}

const COLUMNS: readonly TableColumn[] = [
  { name: 'Webhooks', type: 'integer', value: (o) => (Array.isArray(o['webhooks']) ? o['webhooks'].length : 0) },
  { name: 'Age', type: 'date', value: (o) => (o['metadata'] as Record<string, unknown> | undefined)?.['creationTimestamp'] },
];

const BASE = {
  group: ADMISSION_GROUP,
  versions: ['v1'],
  namespaced: false,
  verbs: ALL_VERBS,
  subresources: [] as string[],
  custom: false,
  tracksGeneration: true,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  categories: ['api-extensions'],
  tableColumns: COLUMNS,
} as const;

export const WEBHOOK_CONFIGURATION_RESOURCES: readonly ResourceType[] = [
  {
    ...BASE,
    resource: VALIDATING_RESOURCE,
    singular: 'validatingwebhookconfiguration',
    kind: 'ValidatingWebhookConfiguration',
    listKind: 'ValidatingWebhookConfigurationList',
    strategy: strategy(false),
  },
  {
    ...BASE,
    resource: MUTATING_RESOURCE,
    singular: 'mutatingwebhookconfiguration',
    kind: 'MutatingWebhookConfiguration',
    listKind: 'MutatingWebhookConfigurationList',
    strategy: strategy(true),
  },
];
