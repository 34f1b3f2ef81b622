/**
 * Optional authorization: a predicate over kube-apiserver's request attributes. Denials become 403 Forbidden with
 * the real message (`User "alice" cannot get resource "configmaps" in API group "" in the namespace "default"`).
 * Without an authorizer every authenticated user may do everything, as envtest's system:masters admin can.
 */
import { forbidden } from '../api/status-error.js';
import type { StatusError } from '../api/status-error.js';
import type { UserInfo } from './authenticator.js';

/**
 * What a request asks to do, as an {@link Authorizer} sees it (kube-apiserver's authorization attributes).
 */
export interface AuthorizationAttributes {
  readonly user: UserInfo;
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource: string | undefined;
  /** Undefined for cluster-scoped resources and all-namespaces requests. */
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  /** The logical cluster ("" outside kcp mode; undefined for the wildcard). */
  readonly cluster: string | undefined;
}

/**
 * Decides whether a request is allowed; a refusal is answered 403 Forbidden, as RBAC would.
 */
export type Authorizer = (attributes: AuthorizationAttributes) => boolean;

export function forbiddenFor(a: AuthorizationAttributes): StatusError {
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const where = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : 'at the cluster scope';
  const why = `User ${JSON.stringify(a.user.name)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.group)} ${where}`;
  return forbidden({ group: a.group, resource: a.resource }, a.name ?? '', why);
}
