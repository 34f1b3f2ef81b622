/**
 * `serviceaccounts/token` (TokenRequest, authentication.k8s.io/v1), as `kubectl create token` uses it: a bearer token
 * for the ServiceAccount, accepted by this server as `system:serviceaccount:<namespace>:<name>` until it expires.
 * Lifetime and validation follow kube-apiserver: default one hour, at least ten minutes. Audiences are echoed, not
 * checked, and the token is opaque (not a JWT).
 */
import { randomBytes } from 'node:crypto';
import type { Authenticator } from '../auth/authenticator.js';
import type { ActionSubresource } from './options.js';

const defaultSeconds = 3600;
const minSeconds = 600;

export function tokenRequestAction(auth: Authenticator): ActionSubresource {
  return {
    group: '',
    resource: 'serviceaccounts',
    subresource: 'token',
    kind: 'TokenRequest',
    create({ object, body }) {
      const metadata = object['metadata'] as { name: string; namespace: string; uid: string };
      const spec = (body['spec'] ?? {}) as Record<string, unknown>;
      const seconds = spec['expirationSeconds'] ?? defaultSeconds;
      if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < minSeconds) {
        return {
          failure: {
            code: 422,
            reason: 'Invalid',
            message: `TokenRequest.authentication.k8s.io "${metadata.name}" is invalid: spec.expirationSeconds: Invalid value: ${JSON.stringify(seconds)}: may not specify a duration less than 10 minutes`,
          },
        };
      }
      const audiences = Array.isArray(spec['audiences']) ? spec['audiences'] : ['https://kubernetes.default.svc.cluster.local'];
      const token = randomBytes(32).toString('base64url');
      const expiresAt = new Date(Math.floor(Date.now() / 1000) * 1000 + seconds * 1000);
      auth.addToken(
        token,
        {
          username: `system:serviceaccount:${metadata.namespace}:${metadata.name}`,
          uid: metadata.uid,
          groups: ['system:serviceaccounts', `system:serviceaccounts:${metadata.namespace}`],
        },
        { expiresAt },
      );
      return {
        object: {
          kind: 'TokenRequest',
          apiVersion: 'authentication.k8s.io/v1',
          metadata: { name: metadata.name, namespace: metadata.namespace, creationTimestamp: null },
          spec: { audiences, expirationSeconds: seconds, boundObjectRef: null },
          status: { token, expirationTimestamp: expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z') },
        },
      };
    },
  };
}
