/**
 * `@multicluster-runtime/core/object`: kubernetes object shapes and group/version/kind helpers: what every other
 * module reads and writes. The package root exports the part of this most programs need.
 */
// First, before anything loads @kubernetes/client-node: a Node its undici cannot run on gets an error with the fix.
import '../node-support/guard.js';
export type { GroupVersionKind, KubeObject, KubeObjectLike, ObjectKey, ObjectKind, ObjectMeta, OwnerReference } from './types.js';
export { formatApiVersion, kindKey, objectKindOf, parseApiVersion, toGroupVersionKind, toObjectKind } from './gvk.js';
