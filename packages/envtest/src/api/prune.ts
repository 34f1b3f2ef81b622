/**
 * Structural-schema pruning and defaulting for custom resources (apiextensions pruning + defaulting): unknown fields
 * disappear unless `x-kubernetes-preserve-unknown-fields`, and missing fields get their `default`. A server that keeps
 * unknown fields lets tests pass that fail on a real cluster. Returns the pruned field paths, for fieldValidation.
 */
import { cloneJson } from '@multicluster-runtime/apimachinery';
import { isPlainObject } from './patch/merge-patch.js';
import type { StructuralSchema } from './resource-type.js';

const ROOT_KEEP = new Set(['apiVersion', 'kind', 'metadata']);

export function pruneAndDefaultObject(obj: Record<string, unknown>, schema: StructuralSchema | undefined): string[] {
  const pruned: string[] = [];
  if (schema) walkObject(obj, schema, ROOT_KEEP, '', pruned);
  return pruned;
}

function walk(value: unknown, schema: StructuralSchema | undefined, path: string, pruned: string[]): unknown {
  if (!schema) return value;
  if (isPlainObject(value)) {
    walkObject(value, schema, schema['x-kubernetes-embedded-resource'] ? ROOT_KEEP : undefined, path, pruned);
    return value;
  }
  if (Array.isArray(value) && schema.items) return value.map((v, i) => walk(v, schema.items, `${path}[${i}]`, pruned));
  return value;
}

function walkObject(
  obj: Record<string, unknown>,
  schema: StructuralSchema,
  keep: Set<string> | undefined,
  path: string,
  pruned: string[],
): void {
  const props = schema.properties;
  const additional = schema.additionalProperties;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  for (const key of Object.keys(obj)) {
    if (keep?.has(key)) continue;
    const child = path ? `${path}.${key}` : key;
    const propSchema = props?.[key];
    if (propSchema) obj[key] = walk(obj[key], propSchema, child, pruned);
    else if (typeof additional === 'object') obj[key] = walk(obj[key], additional, child, pruned);
    else if (!(preserve || additional === true)) {
      delete obj[key];
      pruned.push(child);
    }
  }
  if (props)
    for (const [key, propSchema] of Object.entries(props)) {
      if (obj[key] === undefined && propSchema.default !== undefined)
        obj[key] = walk(cloneJson(propSchema.default), propSchema, `${path}.${key}`, []);
    }
}
