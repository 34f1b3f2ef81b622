/**
 * Just enough YAML to write Kubernetes manifests from plain objects (maps, lists, strings, numbers, booleans), so
 * the templates build manifests as data and never hand-indent text. Strings that YAML would read as something else
 * are quoted as JSON, which YAML accepts.
 */
export type YamlValue = string | number | boolean | null | readonly YamlValue[] | { readonly [key: string]: YamlValue | undefined };

const plain = /^[A-Za-z_/.][\w./:@*-]*$/;
const reserved = /^(true|false|yes|no|on|off|null|y|n|~)$/i;

function scalar(value: string | number | boolean | null): string {
  if (typeof value !== 'string') return String(value);
  return plain.test(value) && !reserved.test(value) ? value : JSON.stringify(value);
}

function isEmptyCollection(value: YamlValue): boolean {
  if (value === null || typeof value !== 'object') return false;
  return Array.isArray(value) ? value.length === 0 : Object.values(value).every((v) => v === undefined);
}

function lines(value: YamlValue): string[] {
  if (value === null || typeof value !== 'object') return [scalar(value)];
  if (isEmptyCollection(value)) return [Array.isArray(value) ? '[]' : '{}'];
  if (Array.isArray(value)) {
    return (value as readonly YamlValue[]).flatMap((item) => {
      const [first = '', ...rest] = lines(item);
      return [`- ${first}`, ...rest.map((l) => `  ${l}`)];
    });
  }
  return Object.entries(value).flatMap(([key, v]) => {
    if (v === undefined) return [];
    const nested = v !== null && typeof v === 'object' && !isEmptyCollection(v);
    if (!nested) return [`${scalar(key)}: ${lines(v)[0]}`];
    return [`${scalar(key)}:`, ...lines(v).map((l) => `  ${l}`)];
  });
}

/** One YAML document per object, separated by `---`. */
export function toYaml(...documents: YamlValue[]): string {
  return documents.map((d) => lines(d).join('\n') + '\n').join('---\n');
}
