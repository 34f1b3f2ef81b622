/**
 * What a namespace member refuses. A member's client, cache and event recorder act only on namespaced kinds in the
 * member's own namespace; anything else is a 403 Forbidden ApiError (so `isForbidden` recognises it) that names the
 * member and what was asked, and is never worth retrying.
 */
import { ApiError } from '@multicluster-runtime/core';

/** A member was asked to read or write outside its namespace, or a cluster-scoped kind. */
export class NamespaceScopeError extends ApiError {
  constructor(
    readonly member: string,
    what: string,
  ) {
    const message = `namespace member ${JSON.stringify(member)}: ${what} (a member reads and writes namespaced kinds in namespace ${JSON.stringify(member)} only)`;
    super(403, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403, message });
  }
}
