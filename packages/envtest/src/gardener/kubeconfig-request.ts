/**
 * `shoots/adminkubeconfig` and `shoots/viewerkubeconfig`, as Gardener answers them: an `AdminKubeconfigRequest` (or
 * `ViewerKubeconfigRequest`) with `spec.expirationSeconds` gets `status.kubeconfig` (base64 kubeconfig YAML) and
 * `status.expirationTimestamp`. The kubeconfig points at the API server backing the shoot and carries a bearer token
 * that server accepts until the expiration (Gardener issues client certificates; a token expires the same way and
 * works on every tier). Lifetime: default one hour, at least `minExpirationSeconds`, at most a day.
 */
import { randomBytes } from 'node:crypto';
import type { TokenOptions, TokenUser } from '../auth/token-user.js';
import type { ActionResult, ActionSubresource } from '../server/options.js';

/** The API server a shoot's kubeconfigs reach: an in-memory ApiServer or a real TestEnvironment. */
export interface ShootApiServer {
  /** Where the shoot's API server answers; the Shoot's `status.advertisedAddresses` names it. */
  readonly url: string;
  /** Kubeconfig YAML that reaches the server as `options.user`; the garden asks for a token user. */
  kubeconfig(options?: { user?: 'admin' | { token: string }; contextName?: string }): string;
  /** Accepts the bearer token until `options.expiresAt`: how the garden's kubeconfigs expire. */
  addToken(token: string, user: string | TokenUser, options?: TokenOptions): void;
}

/** What the subresources need from the garden: the backing server of each shoot and the faults tests set. */
export interface KubeconfigIssuer {
  backing(namespace: string, name: string): ShootApiServer | undefined;
  readonly minExpirationSeconds: number;
  /** Rewrites each kubeconfig before it is returned (a broken or hostile garden). */
  tamper: ((kubeconfig: string, shoot: { namespace: string; name: string }) => string) | undefined;
  /** Answers every request with this failure while set. */
  failure: { code: number; reason: string; message: string } | undefined;
  /** Kubeconfigs issued so far. */
  issued: number;
  /** Requests answered with `failure` so far. */
  failed: number;
}

const defaultSeconds = 3600;
const maxSeconds = 86_400;

/** The two kubeconfig subresources of `shoots`, backed by `issuer`. */
export function kubeconfigActions(issuer: KubeconfigIssuer): ActionSubresource[] {
  return (['admin', 'viewer'] as const).map((access) => ({
    group: 'core.gardener.cloud',
    resource: 'shoots',
    subresource: `${access}kubeconfig`,
    kind: access === 'admin' ? 'AdminKubeconfigRequest' : 'ViewerKubeconfigRequest',
    create: ({ object, body, user }) => issue(issuer, access, object, body, user.name),
  }));
}

function issue(
  issuer: KubeconfigIssuer,
  access: 'admin' | 'viewer',
  shoot: Readonly<Record<string, unknown>>,
  body: Readonly<Record<string, unknown>>,
  requester: string,
): ActionResult {
  const kind = access === 'admin' ? 'AdminKubeconfigRequest' : 'ViewerKubeconfigRequest';
  if (issuer.failure) {
    issuer.failed++;
    return { failure: issuer.failure };
  }
  const { name, namespace } = shoot['metadata'] as { name: string; namespace: string };
  const spec = (body['spec'] ?? {}) as Record<string, unknown>;
  const seconds = spec['expirationSeconds'] ?? defaultSeconds;
  const invalid = (why: string): ActionResult => ({
    failure: {
      code: 422,
      reason: 'Invalid',
      message: `${kind}.authentication.gardener.cloud "${name}" is invalid: spec.expirationSeconds: ${why}`,
    },
  });
  if (typeof seconds !== 'number' || !Number.isInteger(seconds))
    return invalid(`Invalid value: ${JSON.stringify(seconds)}: must be an integer`);
  if (seconds < issuer.minExpirationSeconds) {
    return invalid(`Invalid value: ${seconds}: may not specify a duration less than ${issuer.minExpirationSeconds} seconds`);
  }
  if (seconds > maxSeconds) return invalid(`Invalid value: ${seconds}: may not specify a duration larger than 24 hours`);
  const server = issuer.backing(namespace, name);
  if (!server) {
    return {
      failure: { code: 400, reason: 'BadRequest', message: 'no kube-apiserver advertised addresses in Shoot .status.advertisedAddresses' },
    };
  }
  const groups = access === 'admin' ? ['system:masters'] : ['gardener.cloud:system:viewers'];
  const project = namespace.startsWith('garden-') ? namespace.slice('garden-'.length) : namespace;
  const minted = mintKubeconfig(server, { username: requester, groups }, seconds, `${project}--${name}-external`);
  let kubeconfig = minted.kubeconfig;
  const expiresAt = minted.expiresAt;
  if (issuer.tamper) kubeconfig = issuer.tamper(kubeconfig, { namespace, name });
  issuer.issued++;
  return {
    object: {
      apiVersion: 'authentication.gardener.cloud/v1alpha1',
      kind,
      metadata: { name, namespace, creationTimestamp: null },
      spec: { expirationSeconds: seconds },
      status: {
        kubeconfig: Buffer.from(kubeconfig, 'utf8').toString('base64'),
        expirationTimestamp: expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      },
    },
  };
}

/** A kubeconfig for `server` with a fresh bearer token for `user` that it accepts for `seconds`. */
export function mintKubeconfig(
  server: ShootApiServer,
  user: TokenUser,
  seconds: number,
  contextName: string,
): { kubeconfig: string; expiresAt: Date } {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Math.floor(Date.now() / 1000) * 1000 + seconds * 1000);
  server.addToken(token, user, { expiresAt });
  return { kubeconfig: server.kubeconfig({ user: { token }, contextName }), expiresAt };
}
