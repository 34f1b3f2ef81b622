/** Bootstrap objects as read from a server, compared with bootstrap-objects.ts. */
import type { BootstrapObject } from './bootstrap-objects.js';

/** What a fresh server's copy says that bootstrap-objects.ts does not keep: identity, timestamps, the status controllers write. */
export function normalized(obj: Record<string, unknown>): BootstrapObject {
  const {
    uid: _u,
    resourceVersion: _r,
    creationTimestamp: _c,
    managedFields: _m,
    generation: _g,
    ...metadata
  } = obj['metadata'] as Record<string, unknown>;
  const { status: _s, ...rest } = obj;
  return { ...rest, metadata } as BootstrapObject;
}
