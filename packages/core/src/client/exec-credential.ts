/**
 * Credentials from a kubeconfig exec plugin (`users[].user.exec`, or the legacy `auth-provider: {name: exec}`),
 * fetched the way client-go does and client-node does not: concurrent callers share one plugin run, the result is
 * cached until its `expirationTimestamp` (or until the server rejects it with a 401), a run that hangs is killed
 * after a timeout, and the plugin gets `KUBERNETES_EXEC_INFO` so it knows it cannot prompt.
 */
import { spawn } from 'node:child_process';
import { abortable } from '../signal/wait.js';
import { CredentialError } from './errors.js';

/** The `exec` block of a kubeconfig user. */
export interface ExecConfig {
  command: string;
  args?: string[];
  env?: Array<{ name: string; value: string }>;
  apiVersion?: string;
  provideClusterInfo?: boolean;
  /** `Never`, `IfAvailable` or `Always`; a controller has no terminal, so `Always` cannot work. */
  interactiveMode?: string;
  /** Shown when the command is missing (written by the kubeconfig's author, e.g. how to install the plugin). */
  installHint?: string;
  /**
   * Cluster-specific data for the plugin, sent as `spec.cluster.config` when `provideClusterInfo` is set (client-go's
   * `ExecProvider.Config`: a kubeconfig cluster's `client.authentication.k8s.io/exec` extension).
   */
  config?: unknown;
}

/** What a plugin returns that a request needs: a bearer token and/or a client certificate. */
export interface ExecCredential {
  token?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  /** When the credential stops working (ms since epoch); undefined means "until the server rejects it". */
  expiresAt?: number;
}

/** Cluster details handed to plugins that ask for them (`provideClusterInfo: true`). */
export interface ExecClusterInfo {
  server: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
}

/** Options of an ExecCredentialSource: the plugin's timeout and output limit, how long before expiry to refresh, and the clock. */
export interface ExecCredentialSourceOptions {
  /** Kill a plugin run after this long. Default 60 s. */
  timeoutMs?: number;
  /** Refresh this long before `expirationTimestamp`, so requests never go out with a credential about to lapse. Default 10 s. */
  expirySkewMs?: number;
  /** The largest stdout accepted from a plugin. Default 1 MiB. */
  maxOutputBytes?: number;
  /** The clock, in epoch milliseconds (tests pass their own). Default Date.now. */
  now?: () => number;
}

const defaultApiVersion = 'client.authentication.k8s.io/v1';

/** Runs one exec plugin on demand and caches what it prints. One instance per Transport. */
export class ExecCredentialSource {
  private cached: ExecCredential | undefined;
  private inFlight: Promise<ExecCredential> | undefined;
  private runs = 0;
  private readonly timeoutMs: number;
  private readonly expirySkewMs: number;
  private readonly maxOutputBytes: number;
  private readonly now: () => number;

  constructor(
    private readonly exec: ExecConfig,
    private readonly cluster: ExecClusterInfo,
    options: ExecCredentialSourceOptions = {},
  ) {
    if (typeof exec?.command !== 'string' || exec.command === '') {
      throw new CredentialError('the kubeconfig exec plugin has no command');
    }
    if (exec.interactiveMode === 'Always') {
      throw new CredentialError(
        `exec plugin ${JSON.stringify(exec.command)} needs an interactive terminal (interactiveMode: Always), which a controller does not have`,
      );
    }
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.expirySkewMs = options.expirySkewMs ?? 10_000;
    this.maxOutputBytes = options.maxOutputBytes ?? 1024 * 1024;
    this.now = options.now ?? Date.now;
  }

  /** How many times the plugin was started (for diagnostics and tests). */
  get runCount(): number {
    return this.runs;
  }

  /**
   * The current credential: the cached one while valid, else the result of one plugin run shared by every caller
   * waiting for it. Aborting `signal` stops this caller's wait, not the run others may be waiting on.
   */
  async get(signal?: AbortSignal): Promise<ExecCredential> {
    const cached = this.cached;
    if (cached && (cached.expiresAt === undefined || cached.expiresAt - this.expirySkewMs > this.now())) return cached;
    this.cached = undefined;
    if (!this.inFlight) {
      const run = this.run().then((credential) => {
        if (this.inFlight === run) this.cached = credential;
        return credential;
      });
      this.inFlight = run;
      // Clear after settling either way; a failed run must not be cached.
      run.then(
        () => {
          if (this.inFlight === run) this.inFlight = undefined;
        },
        () => {
          if (this.inFlight === run) this.inFlight = undefined;
        },
      );
    }
    return abortable(this.inFlight, signal);
  }

  /**
   * Drops `used` if it is still the cached credential (the server rejected it). Many requests failing with the same
   * credential therefore cause one new plugin run, not one each.
   */
  invalidate(used: ExecCredential): void {
    if (this.cached === used) this.cached = undefined;
  }

  private clusterInfo(): ExecClusterInfo & { config?: unknown } {
    return this.exec.config === undefined ? this.cluster : { ...this.cluster, config: this.exec.config };
  }

  private run(): Promise<ExecCredential> {
    this.runs++;
    const { command, args = [], env = [] } = this.exec;
    const apiVersion = this.exec.apiVersion ?? defaultApiVersion;
    const info: Record<string, unknown> = {
      apiVersion,
      kind: 'ExecCredential',
      spec: { interactive: false, ...(this.exec.provideClusterInfo ? { cluster: this.clusterInfo() } : {}) },
    };
    const childEnv: NodeJS.ProcessEnv = { ...process.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
    for (const e of env) if (e && typeof e.name === 'string') childEnv[e.name] = String(e.value ?? '');

    return new Promise<ExecCredential>((resolve, reject) => {
      let stdout = '';
      let tooLarge = false;
      let timedOut = false;
      let spawnError: Error | undefined;
      const child = spawn(command, args.map(String), { env: childEnv, stdio: ['ignore', 'pipe', 'ignore'] });
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, this.timeoutMs);
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        stdout += chunk;
        if (stdout.length > this.maxOutputBytes && !tooLarge) {
          tooLarge = true;
          child.kill('SIGKILL');
        }
      });
      child.on('error', (err) => {
        spawnError = err;
      });
      child.on('close', (code, sig) => {
        clearTimeout(timer);
        const fail = (why: string, cause?: unknown) =>
          reject(new CredentialError(`exec plugin ${JSON.stringify(command)} ${why}`, cause ? { cause } : undefined));
        if (spawnError) {
          const code = (spawnError as NodeJS.ErrnoException).code ?? spawnError.message;
          const hint = code === 'ENOENT' && this.exec.installHint ? ` (${this.exec.installHint.trim().slice(0, 300)})` : '';
          return fail(`could not be started: ${code}${hint}`);
        }
        if (timedOut) return fail(`did not finish within ${this.timeoutMs} ms`);
        if (tooLarge) return fail(`printed more than ${this.maxOutputBytes} bytes`);
        if (code !== 0) return fail(`exited with ${sig ? `signal ${sig}` : `code ${code}`}`);
        try {
          resolve(parseExecCredential(stdout, this.exec.apiVersion, this.now()));
        } catch (err) {
          // The message describes the shape only; the output may hold a token.
          fail(`printed no valid ExecCredential: ${(err as Error).message}`);
        }
      });
    });
  }
}

/**
 * Parses a plugin's stdout; with no apiVersion in the kubeconfig any client.authentication.k8s.io version is accepted.
 * A credential that has already expired is refused.
 */
function parseExecCredential(stdout: string, expectedApiVersion: string | undefined, now: number): ExecCredential {
  let doc: unknown;
  try {
    doc = JSON.parse(stdout);
  } catch {
    throw new Error('output is not JSON');
  }
  if (typeof doc !== 'object' || doc === null) throw new Error('output is not a JSON object');
  const obj = doc as { kind?: unknown; apiVersion?: unknown; status?: Record<string, unknown> };
  if (obj.kind !== 'ExecCredential') throw new Error(`kind is ${JSON.stringify(obj.kind)}, want "ExecCredential"`);
  const apiVersionOk =
    expectedApiVersion === undefined
      ? typeof obj.apiVersion === 'string' && obj.apiVersion.startsWith('client.authentication.k8s.io/')
      : obj.apiVersion === expectedApiVersion;
  if (!apiVersionOk) {
    const want = expectedApiVersion ?? 'client.authentication.k8s.io/*';
    throw new Error(`apiVersion is ${JSON.stringify(obj.apiVersion)}, want ${JSON.stringify(want)}`);
  }
  const status = obj.status;
  if (typeof status !== 'object' || status === null) throw new Error('status is missing');
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const credential: ExecCredential = {
    token: str(status['token']),
    clientCertificateData: str(status['clientCertificateData']),
    clientKeyData: str(status['clientKeyData']),
  };
  if (!credential.token && !(credential.clientCertificateData && credential.clientKeyData)) {
    throw new Error('status has neither a token nor clientCertificateData with clientKeyData');
  }
  if ((credential.clientCertificateData === undefined) !== (credential.clientKeyData === undefined)) {
    throw new Error('status has only one of clientCertificateData and clientKeyData');
  }
  const expiry = str(status['expirationTimestamp']);
  if (expiry !== undefined) {
    const at = Date.parse(expiry);
    if (Number.isNaN(at)) throw new Error('status.expirationTimestamp is not an RFC 3339 time');
    // Using it would fail, and asking again at once would run the plugin for every request.
    if (at <= now) throw new Error(`the credential expired at ${new Date(at).toISOString()}`);
    credential.expiresAt = at;
  }
  return credential;
}
