/**
 * The CRDs a test environment installs, from whatever a test has at hand: plain objects, YAML or JSON text (one or
 * many documents, as `kubectl apply -f` takes), files and folders of such text (controller-runtime's
 * `CRDDirectoryPaths`), and objects parsed by client-node's `loadYaml`, whose schemas carry client-node's property
 * names (`x_kubernetes_preserve_unknown_fields`, `_default`, ...) that the API server would refuse: those are turned
 * back into the wire names.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { TestEnvironmentOptionsError } from './errors.js';

/** Files a folder contributes, as controller-runtime's envtest reads them. */
const CRD_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** Every CRD of `crds` (objects or YAML/JSON text) and of the files and folders in `paths`, as wire-format objects. */
export async function loadCrds(crds: readonly (object | string)[] = [], paths: readonly string[] = []): Promise<object[]> {
  const out: object[] = [];
  crds.forEach((crd, index) => {
    if (typeof crd === 'string') out.push(...parseText(crd, `crds[${index}]`));
    else if (typeof crd === 'object' && crd !== null) out.push(wireFormat(crd));
    else throw new TestEnvironmentOptionsError(`crds[${index}]: expected a CRD object or YAML/JSON text, got ${typeof crd}`);
  });
  for (const path of paths) {
    for (const file of await crdFiles(path)) out.push(...parseText(await readFile(file, 'utf8'), file));
  }
  return out;
}

async function crdFiles(path: string): Promise<string[]> {
  const info = await stat(path).catch((err: unknown) => {
    throw new TestEnvironmentOptionsError(`crdPaths: cannot read ${path}: ${(err as Error).message}`, { cause: err });
  });
  if (!info.isDirectory()) return [path];
  const names = (await readdir(path)).filter((n) => CRD_EXTENSIONS.has(extname(n).toLowerCase())).sort();
  return names.map((n) => join(path, n));
}

function parseText(text: string, where: string): object[] {
  const docs = parseAllDocuments(text);
  const out: object[] = [];
  for (const [i, doc] of (Array.isArray(docs) ? docs : [docs]).entries()) {
    if (doc.errors.length > 0) throw new TestEnvironmentOptionsError(`${where}: not valid YAML or JSON: ${doc.errors[0]!.message}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue; // an empty document, e.g. after a trailing ---
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new TestEnvironmentOptionsError(`${where}: document ${i + 1} is not an object`);
    }
    out.push(value);
  }
  return out;
}

/** A plain object is used as is; a client-node model (a class instance) gets the API's property names back. */
function wireFormat(crd: object): object {
  const proto: unknown = Object.getPrototypeOf(crd);
  if (proto === Object.prototype || proto === null) return crd;
  const plain = JSON.parse(JSON.stringify(crd)) as { spec?: { versions?: { schema?: { openAPIV3Schema?: unknown } }[] } };
  for (const version of plain.spec?.versions ?? []) {
    if (version?.schema?.openAPIV3Schema !== undefined) version.schema.openAPIV3Schema = schemaWireFormat(version.schema.openAPIV3Schema);
  }
  return plain;
}

/** client-node's names for JSONSchemaProps fields that are not valid identifiers. */
const renamed: Record<string, string> = { _default: 'default', _enum: 'enum', _not: 'not', _ref: '$ref', _schema: '$schema' };
/** Fields whose value is a map from names (kept as they are) to schemas. */
const schemaMaps = new Set(['properties', 'patternProperties', 'definitions']);
/** Fields whose value is a schema, or a list of schemas. */
const schemaFields = new Set(['items', 'additionalProperties', 'additionalItems', 'not', 'allOf', 'anyOf', 'oneOf']);

function schemaWireFormat(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(schemaWireFormat);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    const name = renamed[key] ?? (key.startsWith('x_kubernetes_') ? key.replaceAll('_', '-') : key);
    if (schemaMaps.has(name) && typeof value === 'object' && value !== null) {
      out[name] = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, schemaWireFormat(v)]));
    } else if (schemaFields.has(name)) {
      out[name] = schemaWireFormat(value);
    } else {
      out[name] = value; // default, enum, example and other values stay untouched
    }
  }
  return out;
}
