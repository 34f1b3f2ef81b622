/** Secret rules: `stringData` is write-only sugar merged into base64 `data`; `type` defaults to Opaque. */
import type { StoredObject } from '../../storage/types.js';
import type { ResourceStrategy } from '../resource-type.js';

function mergeStringData(obj: StoredObject): void {
  const stringData = obj['stringData'];
  if (stringData && typeof stringData === 'object') {
    const data = { ...((obj['data'] as Record<string, string> | undefined) ?? {}) };
    for (const [k, v] of Object.entries(stringData as Record<string, unknown>)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
    obj['data'] = data;
  }
  delete obj['stringData'];
}

export const secretStrategy: ResourceStrategy = {
  prepareForCreate(obj) {
    mergeStringData(obj);
    obj['type'] ??= 'Opaque';
  },
  prepareForUpdate(obj, old) {
    mergeStringData(obj);
    obj['type'] ??= old['type'] ?? 'Opaque';
  },
};
