/**
 * Kubernetes' name rules (apimachinery pkg/util/validation): DNS-1123 labels and subdomains, qualified names (label
 * and annotation keys, finalizers) and label values. Each check says why a string fails, in apimachinery's terms, or
 * returns undefined, so callers can build their own messages (a field error, an options error) around it.
 */

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** The name part of a qualified name, and a non-empty label value. */
const QUALIFIED_NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

const DNS1123_LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1123_SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/** A lowercase RFC 1123 label of at most 63 characters (namespace names, most resource names). */
export function isDns1123Label(s: string): boolean {
  return s.length <= 63 && DNS1123_LABEL.test(s);
}

/** A lowercase RFC 1123 subdomain of at most 253 characters (most object names, key prefixes). */
export function isDns1123Subdomain(s: string): boolean {
  return s.length <= 253 && DNS1123_SUBDOMAIN.test(s);
}

/** What is wrong with `s` as a DNS-1123 label, in apimachinery's words (`IsDNS1123Label`); empty when valid. */
export function dns1123LabelErrors(s: string): string[] {
  return [...(s.length > 63 ? ['must be no more than 63 characters'] : []), ...(DNS1123_LABEL.test(s) ? [] : [DNS1123_LABEL_MESSAGE])];
}

/** What is wrong with `s` as a DNS-1123 subdomain, in apimachinery's words (`IsDNS1123Subdomain`); empty when valid. */
export function dns1123SubdomainErrors(s: string): string[] {
  return [
    ...(s.length > 253 ? ['must be no more than 253 characters'] : []),
    ...(DNS1123_SUBDOMAIN.test(s) ? [] : [DNS1123_SUBDOMAIN_MESSAGE]),
  ];
}

/** The name part of a qualified name (`[prefix/]name`): at most 63 alphanumerics, '-', '_', '.', alphanumeric at both ends. */
export function isQualifiedNamePart(s: string): boolean {
  return s.length <= 63 && QUALIFIED_NAME_PART.test(s);
}

/** A label value: empty, or a string that would be a valid qualified name part. */
export function isLabelValue(s: string): boolean {
  return s === '' || isQualifiedNamePart(s);
}

/** Why `key` is not a qualified name (`[prefix/]name`, as label keys are), or undefined if it is. */
export function qualifiedNameProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined) {
    if (prefix.length === 0) return `key ${JSON.stringify(key)}: prefix part must be non-empty`;
    if (!isDns1123Subdomain(prefix)) {
      return `key ${JSON.stringify(key)}: prefix part must be a lowercase DNS subdomain of at most 253 characters`;
    }
  }
  if (name.length === 0) return `key ${JSON.stringify(key)}: name part must be non-empty`;
  if (name.length > 63) return `key ${JSON.stringify(key)}: name part must be at most 63 characters`;
  if (!QUALIFIED_NAME_PART.test(name)) {
    return `key ${JSON.stringify(key)}: name part must consist of alphanumerics, '-', '_' or '.', and start and end with an alphanumeric`;
  }
  return undefined;
}

/** Why `value` is not a label value (empty, or up to 63 alphanumerics, '-', '_', '.'), or undefined if it is. */
export function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > 63) return `value ${JSON.stringify(value)}: must be at most 63 characters`;
  if (!QUALIFIED_NAME_PART.test(value)) {
    return `value ${JSON.stringify(value)}: must consist of alphanumerics, '-', '_' or '.', and start and end with an alphanumeric`;
  }
  return undefined;
}
