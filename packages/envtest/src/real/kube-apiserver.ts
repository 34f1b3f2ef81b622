/**
 * Starts kube-apiserver for one environment against its etcd: TLS serving with the environment's certificate,
 * client-certificate, static-token and token-webhook authentication, RBAC (or AlwaysAllow) authorization, and the
 * service-account signing keys. Defaults follow controller-runtime's envtest, including the disabled
 * ServiceAccount admission plugin (no controller-manager creates default service accounts).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ControlPlanePki } from './control-plane-pki.js';
import { httpCall, type TlsClientCredentials } from './http-request.js';
import { ManagedProcess } from './managed-process.js';
import { freeLoopbackPort } from './ports.js';
import { waitUntil } from './wait-until.js';

/**
 * kube-apiserver's `--authorization-mode`: real RBAC (the default), or everything allowed.
 */
export type AuthorizationMode = 'RBAC' | 'AlwaysAllow';

export interface KubeApiServerOptions {
  readonly binary: string;
  /** Private folder for certificates, keys and the token file. */
  readonly dir: string;
  readonly etcdUrl: string;
  readonly pki: ControlPlanePki;
  /** Contents of the static token file (see renderTokenFile). */
  readonly tokenFile: string;
  /** Kubeconfig naming the TokenReview webhook that answers for tokens added later. */
  readonly tokenWebhookKubeconfig: string;
  readonly authorization: AuthorizationMode;
  /** Extra or overriding flags, without the leading dashes: `{ 'feature-gates': 'X=true' }`. */
  readonly extraFlags?: Readonly<Record<string, string>>;
  /** Listen here instead of on a fresh port (a restart keeps the URL clients know). */
  readonly port?: number;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly onOutput?: (component: string, line: string) => void;
}

export interface RunningKubeApiServer {
  readonly url: string;
  readonly port: number;
  readonly process: ManagedProcess;
}

/**
 * Starts kube-apiserver and resolves once /readyz answers ok and the `default` namespace exists (readyz alone
 * does not promise it, and tests create objects there first). On failure the process is already stopped.
 */
export async function startKubeApiServer(options: KubeApiServerOptions): Promise<RunningKubeApiServer> {
  const { dir, pki } = options;
  const file = (name: string) => join(dir, name);
  await Promise.all([
    writeFile(file('ca.crt'), pki.caPem, { mode: 0o600 }),
    writeFile(file('apiserver.crt'), pki.servingCertPem, { mode: 0o600 }),
    writeFile(file('apiserver.key'), pki.servingKeyPem, { mode: 0o600 }),
    writeFile(file('sa.pub'), pki.serviceAccountPublicKeyPem, { mode: 0o600 }),
    writeFile(file('sa.key'), pki.serviceAccountPrivateKeyPem, { mode: 0o600 }),
    writeFile(file('tokens.csv'), options.tokenFile, { mode: 0o600 }),
    writeFile(file('token-webhook.kubeconfig'), options.tokenWebhookKubeconfig, { mode: 0o600 }),
  ]);
  const port = options.port ?? (await freeLoopbackPort());
  const url = `https://127.0.0.1:${port}`;
  const flags: Record<string, string> = {
    'etcd-servers': options.etcdUrl,
    'bind-address': '127.0.0.1',
    'advertise-address': '127.0.0.1',
    // The default reconciler publishes the advertise address as the `kubernetes` Service's endpoint and refuses
    // loopback addresses; nothing in a test cluster routes through that Service.
    'endpoint-reconciler-type': 'none',
    'secure-port': String(port),
    'cert-dir': dir,
    'tls-cert-file': file('apiserver.crt'),
    'tls-private-key-file': file('apiserver.key'),
    'client-ca-file': file('ca.crt'),
    'token-auth-file': file('tokens.csv'),
    'authentication-token-webhook-config-file': file('token-webhook.kubeconfig'),
    'authentication-token-webhook-version': 'v1',
    // No cache: a token added a moment ago, or one a test just tried, must be looked up afresh.
    'authentication-token-webhook-cache-ttl': '0s',
    'service-account-issuer': url,
    'service-account-key-file': file('sa.pub'),
    'service-account-signing-key-file': file('sa.key'),
    'service-cluster-ip-range': '10.0.0.0/24',
    'allow-privileged': 'true',
    'authorization-mode': options.authorization,
    'disable-admission-plugins': 'ServiceAccount',
    profiling: 'false',
    // Bounds graceful shutdown to ~2 s even with watches open (otherwise up to --request-timeout, 60 s): requests
    // arriving meanwhile get 429 + Retry-After, as from a production API server that is going away.
    'shutdown-send-retry-after': 'true',
    ...options.extraFlags,
  };
  const proc = ManagedProcess.spawn({
    component: 'kube-apiserver',
    command: options.binary,
    args: Object.entries(flags).map(([name, value]) => `--${name}=${value}`),
    onOutput: options.onOutput,
  });
  const tls: TlsClientCredentials = { caPem: pki.caPem, certPem: pki.adminCertPem, keyPem: pki.adminKeyPem };
  try {
    await waitUntil(
      async (signal) => {
        const ready = await httpCall({ url: `${url}/readyz`, tls, signal, timeoutMs: 5_000 });
        if (ready.status !== 200) return `GET /readyz: ${ready.status} ${lastLines(ready.text)}`;
        const ns = await httpCall({ url: `${url}/api/v1/namespaces/default`, tls, signal, timeoutMs: 5_000 });
        return ns.status === 200 ? true : `GET namespace default: ${ns.status}`;
      },
      { component: 'kube-apiserver', timeoutMs: options.timeoutMs, intervalMs: 200, processes: [proc], signal: options.signal },
    );
  } catch (err) {
    await proc.stop().catch(() => undefined);
    throw err;
  }
  return { url, port, process: proc };
}

/** /readyz lists every check; the failing ones are what matters in an error. */
function lastLines(text: string): string {
  return text
    .split('\n')
    .filter((line) => line.startsWith('[-]'))
    .join('; ')
    .slice(0, 500);
}
