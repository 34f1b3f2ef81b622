/** Name and metadata validation with apimachinery's messages (pkg/util/validation). */
import { dns1123LabelErrors, dns1123SubdomainErrors, isLabelValue, isQualifiedNamePart } from '@multicluster-runtime/apimachinery';
import type { FieldError } from './field-error.js';
import type { NameRule } from './resource-type.js';
import { invalidValue, required } from './field-error.js';

export function validateName(name: string, rule: NameRule, field = 'metadata.name'): FieldError[] {
  const errors =
    rule === 'label' ? dns1123LabelErrors(name) : rule === 'pathSegment' ? pathSegmentErrors(name) : dns1123SubdomainErrors(name);
  return errors.map((message) => invalidValue(field, name, message));
}

/** apimachinery's IsPathSegmentName: the name must survive being one segment of a URL path. */
function pathSegmentErrors(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

/** Label keys (`[prefix/]name`) and values; annotation keys. */
export function validateMetadataMaps(meta: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const labels = meta['labels'];
  if (labels !== undefined && labels !== null) {
    if (!isStringMap(labels)) errs.push(invalidValue('metadata.labels', labels, 'must be a map of string keys to string values'));
    else
      for (const [k, v] of Object.entries(labels)) {
        errs.push(...validateQualifiedName(k, 'metadata.labels'));
        if (!isLabelValue(v))
          errs.push(
            invalidValue(
              'metadata.labels',
              v,
              "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            ),
          );
      }
  }
  const annotations = meta['annotations'];
  if (annotations !== undefined && annotations !== null) {
    if (!isStringMap(annotations))
      errs.push(invalidValue('metadata.annotations', annotations, 'must be a map of string keys to string values'));
    else for (const k of Object.keys(annotations)) errs.push(...validateQualifiedName(k, 'metadata.annotations'));
  }
  const finalizers = meta['finalizers'];
  if (finalizers !== undefined && finalizers !== null && !(Array.isArray(finalizers) && finalizers.every((f) => typeof f === 'string')))
    errs.push(invalidValue('metadata.finalizers', finalizers, 'must be a list of strings'));
  return errs;
}

function validateQualifiedName(key: string, field: string): FieldError[] {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (key === '') return [required(field, 'name part must be non-empty')];
  const errs: FieldError[] = [];
  if (prefix !== undefined) for (const m of dns1123SubdomainErrors(prefix)) errs.push(invalidValue(field, key, `prefix part ${m}`));
  if (!isQualifiedNamePart(name))
    errs.push(
      invalidValue(
        field,
        key,
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ),
    );
  return errs;
}

function isStringMap(v: unknown): v is Record<string, string> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');
}
