/**
 * startTestEnvironment(): a real control plane for tests — etcd plus kube-apiserver from KUBEBUILDER_ASSETS, each
 * environment with its own ports, certificates, tokens and temp folder, so several run side by side. A failed or
 * aborted start, and stop(), leave no process and no folder behind.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveAssets } from './assets.js';
import { createControlPlanePki, type ControlPlanePki } from './control-plane-pki.js';
import { startEtcd, type RunningEtcd } from './etcd.js';
import { ProcessExitedError, TestEnvironmentOptionsError, TestEnvironmentStoppedError } from './errors.js';
import { onProcessExit } from './exit-cleanup.js';
import { attachedOutputFromEnv, timeoutsFromEnv } from './controller-runtime-env.js';
import { createEnvironmentFolder, sweepAbandonedFolders } from './environment-folder.js';
import { loadCrds } from './crd-sources.js';
import { checkCrds, installCrds } from './install-crds.js';
import { startKubeApiServer, type AuthorizationMode, type RunningKubeApiServer } from './kube-apiserver.js';
import { renderKubeconfig, type KubeconfigOptions } from '../kubeconfig.js';
import { renderTokenFile, type StaticToken } from './static-tokens.js';
import type { TokenOptions, TokenUser } from '../auth/token-user.js';
import { TokenWebhook } from './token-webhook.js';

export interface TestEnvironmentOptions {
  /**
   * CustomResourceDefinitions to install and wait for: objects (plain, or parsed by client-node's `loadYaml`) or
   * YAML/JSON text, one or many documents each.
   */
  readonly crds?: readonly (object | string)[];
  /** Files and folders of CRD YAML/JSON to install too (a folder's `.yaml`, `.yml` and `.json` files, not recursive). */
  readonly crdPaths?: readonly string[];
  /** Folder holding kube-apiserver and etcd; defaults to KUBEBUILDER_ASSETS. */
  readonly assetsDir?: string;
  /** Aborts the start; everything started so far is stopped and removed. */
  readonly signal?: AbortSignal;
  /** Authorization mode; RBAC (the default) lets the admin user through via system:masters. */
  readonly authorization?: AuthorizationMode;
  /** Bearer tokens to accept besides the generated admin token. */
  readonly tokens?: readonly StaticToken[];
  /** Extra or overriding kube-apiserver flags without leading dashes, e.g. `{ 'feature-gates': 'X=true' }`. */
  readonly apiServerFlags?: Readonly<Record<string, string>>;
  /** Budget for each of etcd, kube-apiserver and the CRDs to become ready. Default KUBEBUILDER_CONTROLPLANE_START_TIMEOUT or 60 s. */
  readonly startTimeoutMs?: number;
  /** Grace period between SIGTERM and SIGKILL on stop. Default KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT or 10 s. */
  readonly stopGraceMs?: number;
  /** Parent of the environment's temp folder. Default: the OS temp folder. */
  readonly tmpDir?: string;
  /** Cluster and context name in kubeconfigs. Default "envtest". */
  readonly name?: string;
  /** Receives etcd and kube-apiserver output lines. Default: stderr if KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT=true. */
  readonly onOutput?: (component: string, line: string) => void;
}

export interface TestEnvironment {
  readonly name: string;
  /** https://127.0.0.1:<port> */
  readonly url: string;
  /** PEM of the CA that signed the serving and admin certificates. */
  readonly caPem: string;
  /** A bearer token of user "admin" in group system:masters. */
  readonly adminToken: string;
  /** The environment's private temp folder (certificates, token file, etcd data); removed by stop(). */
  readonly dir: string;
  /** Current process ids, for diagnosis (-1 while kube-apiserver restarts). */
  readonly pids: { readonly etcd: number; readonly kubeApiServer: number };
  /** Kubeconfig YAML: the admin client certificate by default, or `{ user: { token } }`; as ApiServer's. */
  kubeconfig(options?: KubeconfigOptions): string;
  /** Writes kubeconfig(options) to a file readable by the owner only. */
  writeKubeconfig(path: string, options?: KubeconfigOptions): Promise<void>;
  /**
   * Accepts `Authorization: Bearer <token>` as `user` from now on, through the environment's TokenReview webhook
   * (tokens given at start sit in kube-apiserver's static token file instead). RBAC still decides what `user` may do.
   * `options.expiresAt` ends it, as an expired ServiceAccount token ends.
   */
  addToken(token: string, user: string | TokenUser, options?: TokenOptions): void;
  /**
   * Stops kube-apiserver (SIGTERM, SIGKILL after the grace period) and starts it again on the same URL against the
   * same etcd, for tests of clients that must survive an API server restart: connections drop, watches end, data
   * stays. Resolves once it is ready again; rejects with TestEnvironmentStoppedError after stop().
   */
  restartApiServer(signal?: AbortSignal): Promise<void>;
  /** Stops kube-apiserver then etcd (SIGTERM, SIGKILL after the grace period) and removes the temp folder. Idempotent. */
  stop(): Promise<void>;
  /** The same as stop(), for code written against the in-memory ApiServer. */
  close(): Promise<void>;
  /** The same as stop(), for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

const maxAttempts = 3;

/** Starts a real control plane; see TestEnvironmentOptions. Throws a TestEnvironmentError subclass on failure. */
export async function startTestEnvironment(options: TestEnvironmentOptions = {}): Promise<TestEnvironment> {
  const fromEnv = timeoutsFromEnv();
  const timeoutMs = options.startTimeoutMs ?? fromEnv.startTimeoutMs ?? 60_000;
  const stopGraceMs = options.stopGraceMs ?? fromEnv.stopGraceMs ?? 10_000;
  if (!(timeoutMs > 0)) throw new TestEnvironmentOptionsError(`startTimeoutMs must be positive, got ${timeoutMs}`);
  if (!(stopGraceMs >= 0)) throw new TestEnvironmentOptionsError(`stopGraceMs must be zero or positive, got ${stopGraceMs}`);
  const onOutput = options.onOutput ?? attachedOutputFromEnv();
  options.signal?.throwIfAborted();
  // Fail on malformed input before spending seconds on starting processes.
  const crds = await loadCrds(options.crds, options.crdPaths);
  checkCrds(crds);
  const adminToken = randomBytes(24).toString('base64url');
  const tokenFile = renderTokenFile([{ token: adminToken, user: 'admin', groups: ['system:masters'] }, ...(options.tokens ?? [])]);
  const assets = await resolveAssets(options.assetsDir);
  await sweepAbandonedFolders(options.tmpDir ?? tmpdir());
  const pki = await createControlPlanePki();
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce({ options, crds, assets, pki, adminToken, tokenFile, timeoutMs, stopGraceMs, onOutput });
    } catch (err) {
      // Only a port taken between our probe and the child's bind is worth a fresh try.
      const retry = err instanceof ProcessExitedError && err.retryable;
      if (!retry || attempt >= maxAttempts || options.signal?.aborted) throw err;
    }
  }
}

interface StartInput {
  readonly options: TestEnvironmentOptions;
  /** The CRDs of `crds` and `crdPaths`, loaded and checked. */
  readonly crds: readonly object[];
  readonly assets: { readonly kubeApiServer: string; readonly etcd: string };
  readonly pki: ControlPlanePki;
  readonly adminToken: string;
  readonly tokenFile: string;
  readonly timeoutMs: number;
  readonly stopGraceMs: number;
  readonly onOutput: ((component: string, line: string) => void) | undefined;
}

async function startOnce(input: StartInput): Promise<TestEnvironment> {
  const { options, crds, assets, pki, timeoutMs, stopGraceMs, onOutput } = input;
  const dir = await createEnvironmentFolder(options.tmpDir ?? tmpdir());
  const unregisterDirCleanup = onProcessExit(() => rmSync(dir, { recursive: true, force: true }));
  const apiServerDir = join(dir, 'kube-apiserver');
  // Aborted by stop(), so a restart still starting does not outlive the environment.
  const lifetime = new AbortController();
  let etcd: RunningEtcd | undefined;
  let apiServer: RunningKubeApiServer | undefined;
  let webhook: TokenWebhook | undefined;
  let restarting: Promise<void> = Promise.resolve();

  let webhookKubeconfig = '';
  const launchApiServer = (etcdUrl: string, port: number | undefined, signal: AbortSignal | undefined) =>
    startKubeApiServer({
      binary: assets.kubeApiServer,
      dir: apiServerDir,
      etcdUrl,
      port,
      pki,
      tokenFile: input.tokenFile,
      tokenWebhookKubeconfig: webhookKubeconfig,
      authorization: options.authorization ?? 'RBAC',
      extraFlags: options.apiServerFlags,
      timeoutMs,
      signal,
      onOutput,
    });

  const teardown = async (): Promise<void> => {
    lifetime.abort(new TestEnvironmentStoppedError('the environment was stopped'));
    await restarting.catch(() => undefined);
    const failures: unknown[] = [];
    for (const proc of [apiServer?.process, etcd?.process]) {
      await proc?.stop(stopGraceMs).catch((err: unknown) => failures.push(err));
    }
    await webhook?.close();
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
    unregisterDirCleanup();
    if (failures.length > 0) throw failures[0];
  };

  try {
    const etcdDir = join(dir, 'etcd');
    await mkdir(etcdDir, { mode: 0o700 });
    await mkdir(apiServerDir, { mode: 0o700 });
    webhook = await TokenWebhook.start({ caPem: pki.caPem, certPem: pki.servingCertPem, keyPem: pki.servingKeyPem });
    webhookKubeconfig = webhook.kubeconfig({ certPem: pki.webhookClientCertPem, keyPem: pki.webhookClientKeyPem });
    etcd = await startEtcd({ binary: assets.etcd, dataDir: etcdDir, timeoutMs, signal: options.signal, onOutput });
    apiServer = await launchApiServer(etcd.clientUrl, undefined, options.signal);
    const tls = { caPem: pki.caPem, certPem: pki.adminCertPem, keyPem: pki.adminKeyPem };
    if (crds.length > 0) {
      const processes = [etcd.process, apiServer.process];
      await installCrds(crds, { url: apiServer.url, tls, timeoutMs, signal: options.signal, processes });
    }
  } catch (err) {
    await teardown().catch(() => undefined);
    throw err;
  }

  const running = { etcd, webhook, port: apiServer.port, url: apiServer.url };
  const name = options.name ?? 'envtest';
  const kubeconfigInput = { name, server: running.url, caPem: pki.caPem, admin: { certPem: pki.adminCertPem, keyPem: pki.adminKeyPem } };
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopping ??= teardown());

  const restartApiServer = (signal?: AbortSignal): Promise<void> => {
    if (stopping) return Promise.reject(new TestEnvironmentStoppedError('the environment was stopped; it cannot restart'));
    const restart = restarting
      .catch(() => undefined)
      .then(async () => {
        const both = signal ? AbortSignal.any([signal, lifetime.signal]) : lifetime.signal;
        both.throwIfAborted();
        await apiServer?.process.stop(stopGraceMs);
        both.throwIfAborted();
        apiServer = undefined;
        apiServer = await launchApiServer(running.etcd.clientUrl, running.port, both);
      });
    restarting = restart;
    return restart;
  };

  return {
    name,
    url: running.url,
    caPem: pki.caPem,
    adminToken: input.adminToken,
    dir,
    get pids() {
      return { etcd: running.etcd.process.pid ?? -1, kubeApiServer: apiServer?.process.pid ?? -1 };
    },
    kubeconfig: (kubeconfigOptions) => renderKubeconfig(kubeconfigInput, kubeconfigOptions),
    writeKubeconfig: (path, kubeconfigOptions) => writeFile(path, renderKubeconfig(kubeconfigInput, kubeconfigOptions), { mode: 0o600 }),
    addToken: (token, user, tokenOptions) => running.webhook.addToken(token, user, tokenOptions),
    restartApiServer,
    stop,
    close: stop,
    [Symbol.asyncDispose]: stop,
  };
}
