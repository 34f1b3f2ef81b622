/**
 * Reading a built-in object the way kube-apiserver's JSON decoder reads it into its Go type, by the field types in
 * builtin-schemas.ts: a value of the wrong JSON type is refused with the Go decoder's words (the first one met, in
 * document order); a field the kind does not have is dropped and reported, for fieldValidation to judge; a null field
 * is an absent one; the defaults the schema declares fill absent fields (zero values included: Go writes a field
 * without omitempty, and every struct, even when it was not sent), then what the kind's Go code defaults
 * (builtin-go-defaults.ts). A server that stores whatever it is sent lets tests pass that fail on a real cluster.
 */
import { cloneJson } from '@multicluster-runtime/apimachinery';
import { canonicalQuantity } from './quantity.js';
import { GO_DEFAULTERS } from './builtin-go-defaults.js';
import { BUILTIN_SCHEMAS } from './builtin-schemas.js';
import { isPlainObject } from './patch/merge-patch.js';

/** A value the Go type cannot hold. `message` is the JSON decoder's; `applyMessage` server-side apply's. */
export class BuiltinDecodeError extends Error {
  constructor(
    message: string,
    readonly applyMessage: string,
  ) {
    super(message);
    this.name = 'BuiltinDecodeError';
  }
}

/** The definition of a built-in kind at `groupVersion`, or undefined when the schemas do not know it. */
export function builtinDefinition(groupVersion: string, kind: string): string | undefined {
  return BUILTIN_SCHEMAS.kinds[`${groupVersion}/${kind}`];
}

/**
 * Decodes `obj` in place as the kind `definition` names. Returns the paths of the fields it dropped
 * (`spec.template.spec.containers[0].bogus`); throws BuiltinDecodeError at the first value of the wrong type.
 */
export function decodeBuiltin(obj: Record<string, unknown>, definition: string): string[] {
  const dropped: string[] = [];
  decodeStruct(obj, definition, '', '', dropped);
  return dropped;
}

/**
 * The value Go writes for `field` of `definition` when it is unset (a struct's zero value, with its own fields), or
 * undefined when Go leaves it out: what a server that resets a field (status on create) stores in its place.
 */
export function zeroField(definition: string, field: string): unknown {
  const value = BUILTIN_SCHEMAS.defaults[definition]?.[field];
  if (value === undefined) return undefined;
  const filled = cloneJson(value);
  const type = BUILTIN_SCHEMAS.types[definition]?.[field] ?? '';
  if (isPlainObject(filled) && BUILTIN_SCHEMAS.types[type]) decodeStruct(filled, type, field, field, []);
  return filled;
}

/**
 * `goPath` is the decoder's name for a field: the JSON names of struct fields from the root, without list indexes or
 * map keys; `path` is the full path, as unknown fields are reported.
 */
function decodeStruct(obj: Record<string, unknown>, definition: string, goPath: string, path: string, dropped: string[]): void {
  const fields = BUILTIN_SCHEMAS.types[definition] ?? {};
  const struct = goName(definition);
  for (const key of Object.keys(obj)) {
    const type = fields[key];
    const childPath = path ? `${path}.${key}` : key;
    if (type === undefined) {
      delete obj[key];
      dropped.push(childPath);
    } else if (obj[key] === null) delete obj[key];
    else obj[key] = decodeValue(obj[key], type, { struct, field: goPath ? `${goPath}.${key}` : key }, childPath, dropped);
  }
  // What Go writes for a field left out: its declared default, or its zero value (a struct with its own fields).
  for (const key of Object.keys(BUILTIN_SCHEMAS.defaults[definition] ?? {}))
    if (obj[key] === undefined) obj[key] = zeroField(definition, key);
  if (definition.startsWith(CORE_V1)) roundResourceLists(obj, fields);
  GO_DEFAULTERS[definition]?.(obj);
}

const CORE_V1 = 'api.core.v1.';

/** core/v1's SetDefaults_ResourceList: every quantity of a ResourceList (requests, limits, hard, …) rounded up to milli-units. */
function roundResourceLists(obj: Record<string, unknown>, fields: Readonly<Record<string, string>>): void {
  for (const [key, type] of Object.entries(fields)) {
    const list = obj[key];
    if (type !== 'map[string]quantity' || !isPlainObject(list)) continue;
    for (const [name, quantity] of Object.entries(list)) list[name] = canonicalQuantity(quantity, { roundUpToMilli: true });
  }
}

/** Where a value sits, as the decoder names it: `DeploymentSpec` and `spec.replicas`. */
interface Field {
  readonly struct: string;
  readonly field: string;
}

function decodeValue(value: unknown, type: string, at: Field, path: string, dropped: string[]): unknown {
  switch (type) {
    case 'any':
      return value;
    case 'string':
      if (typeof value !== 'string') mismatch(value, at, type, path);
      return value;
    case 'bool':
      if (typeof value !== 'boolean') mismatch(value, at, type, path);
      return value;
    case 'float64':
      if (typeof value !== 'number') mismatch(value, at, type, path);
      return value;
    case 'int32':
    case 'int64':
      if (typeof value !== 'number' || !fitsInteger(value, type)) mismatch(value, at, type, path);
      return value;
    case 'int-or-string':
      if (typeof value !== 'string' && (typeof value !== 'number' || !fitsInteger(value, 'int32'))) mismatch(value, at, 'int32', path);
      return value;
    case 'time':
      if (typeof value !== 'string') mismatch(value, at, 'string', path);
      return value;
    case 'quantity':
      checkQuantity(value, path);
      return canonicalQuantity(value);
  }
  if (type.startsWith('[]')) {
    if (!Array.isArray(value)) mismatch(value, at, type, path);
    const item = type.slice(2);
    for (let i = 0; i < value.length; i++) if (value[i] !== null) value[i] = decodeValue(value[i], item, at, `${path}[${i}]`, dropped);
    return value;
  }
  if (type.startsWith('map[string]')) {
    if (!isPlainObject(value)) mismatch(value, at, type, path);
    const item = type.slice('map[string]'.length);
    for (const [key, v] of Object.entries(value))
      value[key] = v === null ? zeroValue(item) : decodeValue(v, item, at, `${path}.${key}`, dropped);
    return value;
  }
  if (!isPlainObject(value)) mismatch(value, at, type, path);
  decodeStruct(value, type, at.field, path, dropped);
  return value;
}

function fitsInteger(n: number, type: 'int32' | 'int64'): boolean {
  return Number.isInteger(n) && (type === 'int64' || (n >= -2147483648 && n <= 2147483647));
}

/** A null map value decodes to the item type's zero value, as Go's does (`data: {a: null}` stores `a: ""`). */
function zeroValue(type: string): unknown {
  if (type === 'string' || type === 'time') return '';
  if (type === 'bool') return false;
  if (type === 'int32' || type === 'int64' || type === 'float64') return 0;
  return null;
}

function mismatch(value: unknown, at: Field, type: string, path: string): never {
  const got = jsonKind(value);
  const wasNumber = typeof value === 'number' && (type === 'int32' || type === 'int64');
  throw new BuiltinDecodeError(
    `json: cannot unmarshal ${wasNumber ? `number ${String(value)}` : got} into Go struct field ${at.struct}.${at.field} of type ${goType(type)}`,
    `.${path}: expected ${applyKind(type)}, got ${got}`,
  );
}

const QUANTITY_FORMAT = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const QUANTITY_SUFFIX = /^(|[numkMGTPE]|[KMGTPE]i|[eE][-+]?[0-9]+)$/;

/** resource.Quantity reads a JSON string or number; anything else, or text that is no quantity, is refused. */
function checkQuantity(value: unknown, path: string): void {
  const text = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : JSON.stringify(value);
  const match = QUANTITY_FORMAT.exec(text);
  let message: string | undefined;
  if (!match) message = `quantities must match the regular expression '${QUANTITY_FORMAT.source}'`;
  else if (!QUANTITY_SUFFIX.test(match[2]!)) message = "unable to parse quantity's suffix";
  else if (!/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$/.test(match[1]!)) message = 'unable to parse numeric part of quantity';
  if (message) throw new BuiltinDecodeError(message, `.${path}: ${message}`);
}

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** The Go type as the decoder prints it: `int32`, `[]v1.Container`, `map[string]string`, `v1.DeploymentSpec`. */
function goType(type: string): string {
  if (type.startsWith('[]')) return `[]${goType(type.slice(2))}`;
  if (type.startsWith('map[string]')) return `map[string]${goType(type.slice('map[string]'.length))}`;
  if (BUILTIN_SCHEMAS.types[type]) return type.split('.').slice(-2).join('.');
  return type;
}

/** A definition's Go struct name: `DeploymentSpec`. */
function goName(definition: string): string {
  return definition.slice(definition.lastIndexOf('.') + 1);
}

/** What server-side apply says it expected. */
function applyKind(type: string): string {
  if (type === 'int32' || type === 'int64' || type === 'float64') return 'numeric (int or float)';
  if (type === 'bool') return 'boolean';
  if (type.startsWith('[]')) return 'list';
  if (type === 'string' || type === 'time') return 'string';
  return 'map';
}
