/**
 * Per-request credentials and TLS material for one kubeconfig context. Tokens, token files, client certificates,
 * basic auth, impersonation and the legacy auth providers (OIDC, GCP, Azure) come from client-node's KubeConfig,
 * asked afresh for every request so rotated tokens and refreshed provider credentials are picked up. Exec plugins
 * are run by our own ExecCredentialSource instead of client-node's, which neither dedupes concurrent runs nor
 * forgets a credential the server rejected.
 */
import { createHash } from 'node:crypto';
import type { Cluster as KcCluster, User as KcUser } from '@kubernetes/client-node';
import { KubeConfig } from '@kubernetes/client-node';
import { CredentialError } from './errors.js';
import { ExecCredentialSource, type ExecConfig, type ExecCredential, type ExecCredentialSourceOptions } from './exec-credential.js';

/** What the TLS connection is made with. Agents are keyed by `key`: new material means a new pool. */
export interface TlsMaterial {
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  /** False only when the kubeconfig says `insecure-skip-tls-verify: true`. */
  rejectUnauthorized: boolean;
  servername?: string;
}

export interface RequestCredentials {
  headers: Record<string, string>;
  tls: TlsMaterial;
  /** A digest of `tls`, to tell whether the connection pool still fits. */
  tlsKey: string;
  /** The exec credential these headers were built from, to invalidate it on a 401. */
  exec?: ExecCredential;
}

type MutableOptions = {
  headers?: Record<string, string | number | string[]>;
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  rejectUnauthorized?: boolean;
  servername?: string;
  auth?: string;
};

export class RequestAuth {
  private readonly kc: KubeConfig;
  private readonly exec: ExecCredentialSource | undefined;

  /**
   * @param cluster the cluster to connect to (its server URL is handled by the Transport)
   * @param user the user to authenticate as, or undefined for anonymous access
   */
  constructor(cluster: KcCluster, user: KcUser | undefined, customAuthenticators: unknown[], execOptions?: ExecCredentialSourceOptions) {
    const execConfig = execConfigOf(user);
    this.exec = execConfig ? new ExecCredentialSource(execConfig, clusterInfo(cluster), execOptions) : undefined;
    // A private KubeConfig holding only this cluster and user: exec is stripped (we run it), and so are the server
    // URL and proxy (client-node would refuse http:// servers and build proxy agents we never use).
    const authUser: KcUser = execConfig ? withoutExec(user as KcUser) : (user ?? { name: 'anonymous' });
    const authCluster: KcCluster = {
      name: cluster.name,
      server: 'https://kubeconfig.invalid',
      caData: cluster.caData,
      caFile: cluster.caFile,
      skipTLSVerify: cluster.skipTLSVerify === true,
      tlsServerName: cluster.tlsServerName,
    };
    this.kc = new KubeConfig();
    this.kc.loadFromClusterAndUser(authCluster, authUser);
    for (const a of customAuthenticators) this.kc.addAuthenticator(a as Parameters<KubeConfig['addAuthenticator']>[0]);
  }

  /** True when a 401 may be cured by fetching a new credential (only exec plugins can be asked again). */
  get canRefresh(): boolean {
    return this.exec !== undefined;
  }

  /** The exec plugin run count, for diagnostics. */
  get execRuns(): number {
    return this.exec?.runCount ?? 0;
  }

  async resolve(signal?: AbortSignal): Promise<RequestCredentials> {
    const opts: MutableOptions = {};
    try {
      await this.kc.applyToHTTPSOptions(opts as Parameters<KubeConfig['applyToHTTPSOptions']>[0]);
    } catch (err) {
      // client-node errors here come from reading files or auth-provider refreshes; keep only the error class.
      throw new CredentialError(`the kubeconfig's credentials could not be loaded (${errorKind(err)})`, { cause: err });
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {})) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
    if (opts.auth) headers['Authorization'] = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    const tls: TlsMaterial = {
      ca: opts.ca,
      cert: opts.cert,
      key: opts.key,
      rejectUnauthorized: opts.rejectUnauthorized !== false,
      servername: opts.servername,
    };
    let exec: ExecCredential | undefined;
    if (this.exec) {
      exec = await this.exec.get(signal);
      if (exec.token) headers['Authorization'] = `Bearer ${exec.token}`;
      if (exec.clientCertificateData && exec.clientKeyData) {
        tls.cert = exec.clientCertificateData;
        tls.key = exec.clientKeyData;
      }
    }
    return { headers, tls, tlsKey: tlsDigest(tls), exec };
  }

  /** The server rejected `used` with a 401: forget it so the next resolve runs the plugin again. */
  rejected(used: RequestCredentials): void {
    if (this.exec && used.exec) this.exec.invalidate(used.exec);
  }
}

function execConfigOf(user: KcUser | undefined): ExecConfig | undefined {
  if (!user) return undefined;
  if (user.exec) return user.exec as ExecConfig;
  const provider = user.authProvider as { name?: string; config?: { exec?: ExecConfig } } | undefined;
  if (provider?.config?.exec) return provider.config.exec;
  if (provider?.name === 'exec') {
    throw new CredentialError('the kubeconfig auth-provider "exec" has no config.exec block');
  }
  return undefined;
}

function withoutExec(user: KcUser): KcUser {
  // client-node types both fields as any; read them as the unknown kubeconfig data they are.
  const { exec: _exec, authProvider, ...rest } = user as Omit<KcUser, 'exec' | 'authProvider'> & { exec?: unknown; authProvider?: unknown };
  const provider = authProvider as { name?: string; config?: { exec?: unknown } } | undefined;
  const keepProvider = provider !== undefined && provider.name !== 'exec' && !provider.config?.exec;
  return keepProvider ? { ...rest, authProvider } : rest;
}

function clusterInfo(cluster: KcCluster) {
  return {
    server: cluster.server,
    ...(cluster.caData ? { 'certificate-authority-data': cluster.caData } : {}),
    ...(cluster.skipTLSVerify ? { 'insecure-skip-tls-verify': true } : {}),
    ...(cluster.tlsServerName ? { 'tls-server-name': cluster.tlsServerName } : {}),
  };
}

function tlsDigest(tls: TlsMaterial): string {
  const h = createHash('sha256');
  for (const part of [tls.ca, tls.cert, tls.key, tls.servername]) {
    h.update(part === undefined ? '-' : '+');
    if (part !== undefined) h.update(part);
    h.update('\0');
  }
  h.update(tls.rejectUnauthorized ? '1' : '0');
  return h.digest('hex');
}

function errorKind(err: unknown): string {
  if (err && typeof err === 'object') {
    const e = err as { code?: unknown; name?: unknown };
    if (typeof e.code === 'string') return e.code;
    if (typeof e.name === 'string') return e.name;
  }
  return 'unknown error';
}
