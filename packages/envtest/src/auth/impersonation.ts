/**
 * Impersonation headers (`Impersonate-User`, `Impersonate-Group`, `Impersonate-Uid`), as client-node and kubectl
 * send them for a kubeconfig `as:`. The requester must be allowed to `impersonate` users (and groups) when an
 * authorizer is set; the request then runs as the impersonated user.
 */
import type { IncomingMessage } from 'node:http';
import { StatusError } from '../api/status-error.js';
import type { UserInfo } from './authenticator.js';
import type { Authorizer } from './authorizer.js';

export function impersonate(req: IncomingMessage, requester: UserInfo, authorizer: Authorizer | undefined): UserInfo {
  const userHeader = req.headers['impersonate-user'];
  const groupHeader = req.headers['impersonate-group'];
  const uidHeader = req.headers['impersonate-uid'];
  const name = Array.isArray(userHeader) ? userHeader[0] : userHeader;
  const groups = groupHeader === undefined ? [] : Array.isArray(groupHeader) ? groupHeader : [groupHeader];
  if (name === undefined) {
    if (groups.length > 0 || uidHeader !== undefined)
      throw new StatusError(
        500,
        'InternalError',
        'Internal error occurred: requested impersonation of groups or uid without impersonating a user',
      );
    return requester;
  }
  const deny = (resource: string, value: string): StatusError =>
    new StatusError(
      403,
      'Forbidden',
      `${resource} "${value}" is forbidden: User ${JSON.stringify(requester.name)} cannot impersonate resource ${JSON.stringify(resource)} in API group "" at the cluster scope`,
      {
        name: value,
        kind: resource,
      },
    );
  const check = (resource: string, value: string): void => {
    const attributes = {
      user: requester,
      verb: 'impersonate',
      group: '',
      resource,
      subresource: undefined,
      namespace: undefined,
      name: value,
      cluster: '',
    };
    if (authorizer && !authorizer(attributes)) throw deny(resource, value);
  };
  check('users', name);
  for (const g of groups) check('groups', g);
  const uid = Array.isArray(uidHeader) ? uidHeader[0] : uidHeader;
  return { name, groups: [...groups, 'system:authenticated'], ...(uid ? { uid } : {}) };
}
