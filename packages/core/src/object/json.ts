/** JSON objects as core's client and toolkit handle them (copies and equality: `@multicluster-runtime/apimachinery`). */

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
