/**
 * Credentials a member keeps while they are replaced underneath it. Gardener's kubeconfigs are short-lived, so the
 * provider asks for a fresh one before each expires; when it reaches the same API server the same way, only the
 * token or client certificate changes. The member's KubeConfig names this credential through a client-node
 * authenticator that core's transport consults on every request, so the next request carries the new credential
 * (a new client certificate gets a new connection pool) and the member's cluster, informers and cache stay as they
 * are: no re-engagement, no re-list.
 */
import { createHash } from 'node:crypto';
import { KubeConfig, type User } from '@kubernetes/client-node';

/** A bearer token, or a client certificate and key (PEM). */
export type Secret = { readonly token: string } | { readonly cert: Buffer; readonly key: Buffer };

/** The auth-provider name the member's kubeconfig user carries; only this provider's authenticator answers to it. */
const authProviderName = 'multicluster-runtime.gardener.cloud/renewable';

type HttpsOptions = { headers?: Record<string, unknown>; cert?: Buffer | string; key?: Buffer | string };

/** One member's current credential, swapped by `renew`; its authenticator applies whatever is current. */
export class RenewableCredential {
  private secret: Secret;

  constructor(secret: Secret) {
    this.secret = secret;
  }

  /** Uses `next` for every request from now on. */
  renew(next: Secret): void {
    this.secret = next;
  }

  /** A KubeConfig for `server` authenticated by this credential. */
  config(server: { server: string; caData?: string; skipTLSVerify: boolean; tlsServerName?: string }): KubeConfig {
    const kc = new KubeConfig();
    const user: User = { name: 'gardener', authProvider: { name: authProviderName, config: {} } };
    kc.loadFromOptions({
      clusters: [{ name: 'shoot', ...server }],
      users: [user],
      contexts: [{ name: 'shoot', cluster: 'shoot', user: 'gardener' }],
      currentContext: 'shoot',
    });
    kc.addAuthenticator({
      isAuthProvider: (u: User) => (u.authProvider as { name?: unknown } | undefined)?.name === authProviderName,
      applyAuthentication: (_u: User, opts: HttpsOptions) => {
        const secret = this.secret;
        if ('token' in secret) opts.headers = { ...opts.headers, Authorization: `Bearer ${secret.token}` };
        else {
          opts.cert = secret.cert;
          opts.key = secret.key;
        }
        return Promise.resolve();
      },
    });
    return kc;
  }
}

/**
 * What a loaded kubeconfig's current context reaches and how, for renewal in place: the endpoint (server, CA, TLS
 * settings and the kind of credential, digested) and the credential itself. Undefined when the credential is not an
 * inline token or client certificate (an exec plugin a policy allowed, say): such a member is re-engaged instead.
 */
export function renewableParts(
  kc: KubeConfig,
): { endpoint: string; server: Parameters<RenewableCredential['config']>[0]; secret: Secret } | undefined {
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (!cluster || !user || user.exec || user.authProvider || user.username || user.impersonateUser) return undefined;
  let secret: Secret;
  if (user.token && !user.certData && !user.keyData) secret = { token: user.token };
  else if (!user.token && user.certData && user.keyData) {
    secret = { cert: Buffer.from(user.certData, 'base64'), key: Buffer.from(user.keyData, 'base64') };
  } else return undefined;
  const server = {
    server: cluster.server,
    skipTLSVerify: cluster.skipTLSVerify === true,
    ...(cluster.caData ? { caData: cluster.caData } : {}),
    ...(cluster.tlsServerName ? { tlsServerName: cluster.tlsServerName } : {}),
  };
  const endpoint = createHash('sha256')
    .update(
      JSON.stringify([
        server.server,
        server.caData ?? '',
        server.tlsServerName ?? '',
        server.skipTLSVerify,
        'token' in secret ? 'token' : 'cert',
      ]),
    )
    .digest('hex');
  return { endpoint, server, secret };
}
