/**
 * Test support for the kubeconfig providers: an Aware that records engagements, a logger that keeps every record
 * (to prove no credential is ever logged), a started host cluster over an envtest server, and the hostile
 * kubeconfigs both providers must refuse. Kubeconfigs are written as JSON, which is YAML.
 */
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger, newCluster, silentLogger } from '@multicluster-runtime/core';
import { loadUntrustedKubeconfig } from '@multicluster-runtime/core/kubeconfig';
import { noopMetrics } from '@multicluster-runtime/core/metrics';
import type { Aware, Cluster, ClusterName, Logger, ProviderContext } from '@multicluster-runtime/core';
import type { KubeCluster } from '@multicluster-runtime/core/cluster';
import type { ApiServer } from '@multicluster-runtime/envtest';

export interface Engagement {
  readonly name: ClusterName;
  readonly cluster: Cluster;
  readonly signal: AbortSignal;
}

/** Records every engagement, as a manager would receive them. */
export class RecordingAware implements Aware {
  readonly engagements: Engagement[] = [];

  engage(signal: AbortSignal, name: ClusterName, cluster: Cluster): Promise<void> {
    this.engagements.push({ name, cluster, signal });
    return Promise.resolve();
  }

  /** Names engaged now, sorted. */
  live(): ClusterName[] {
    return this.engagements
      .filter((e) => !e.signal.aborted)
      .map((e) => e.name)
      .sort();
  }

  /** The live engagement of `name`, if any. */
  current(name: ClusterName): Engagement | undefined {
    return this.engagements.find((e) => e.name === name && !e.signal.aborted);
  }

  /** A start context engaging through this Aware: no host cluster unless given, silent logs, no metrics. */
  context(extra: Partial<ProviderContext> = {}): ProviderContext {
    return { aware: this, logger: silentLogger, metrics: noopMetrics, ...extra };
  }
}

/** A logger whose records (JSON-encoded) a test can search. */
export function capturingLogger(): { logger: Logger; records: string[] } {
  const records: string[] = [];
  const logger = createLogger({ level: 'debug', sink: (level, msg, fields) => records.push(JSON.stringify({ level, msg, ...fields })) });
  return { logger, records };
}

/** A running cluster over `server` (admin credentials; an in-memory or a real API server), stopped by the returned function. */
export async function runningCluster(
  server: Pick<ApiServer, 'kubeconfig' | 'name'>,
): Promise<{ cluster: KubeCluster; stop: () => Promise<void> }> {
  const cluster = newCluster(loadUntrustedKubeconfig(server.kubeconfig()), { name: server.name });
  const ac = new AbortController();
  const done = cluster.start(ac.signal);
  await cluster.waitForCacheSync(ac.signal);
  return {
    cluster,
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

type Doc = Record<string, any>;

/** The server's admin kubeconfig as an object, to be altered. */
export function kubeconfigDoc(server: Pick<ApiServer, 'kubeconfig'>, opts?: Parameters<ApiServer['kubeconfig']>[0]): Doc {
  return loadYamlAsJson(server.kubeconfig(opts));
}

function loadYamlAsJson(text: string): Doc {
  // The envtest kubeconfig is plain YAML; client-node's loader is not used, the policy loader only reads it.
  const kc = loadUntrustedKubeconfig(text);
  const cluster = kc.getCurrentCluster()!;
  const user = kc.getCurrentUser()!;
  const context = kc.getContextObject(kc.getCurrentContext())!;
  const userBody: Doc = {};
  if (user.certData) userBody['client-certificate-data'] = user.certData;
  if (user.keyData) userBody['client-key-data'] = user.keyData;
  if (user.token) userBody['token'] = user.token;
  return {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': context.name,
    contexts: [{ name: context.name, context: { cluster: cluster.name, user: user.name, namespace: context.namespace ?? 'default' } }],
    clusters: [{ name: cluster.name, cluster: { server: cluster.server, 'certificate-authority-data': cluster.caData } }],
    users: [{ name: user.name, user: userBody }],
  };
}

/** A credential plugin that leaves a marker file behind if it ever runs. */
export function markerPlugin(dir: string, name: string): { command: string; ran: () => boolean } {
  const marker = join(dir, `${name}.ran`);
  const command = join(dir, `${name}.sh`);
  writeFileSync(
    command,
    `#!/bin/sh\ntouch '${marker}'\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-exec"}}'\n`,
  );
  chmodSync(command, 0o755);
  return { command, ran: () => existsSync(marker) };
}

export interface HostileCase {
  readonly name: string;
  readonly alter: (doc: Doc) => void;
  readonly capability: string;
}

/**
 * Kubeconfigs that would run a program, read local files or drop TLS verification. `plugin` is a marker plugin;
 * every case that could run a program runs that one.
 */
export function hostileCases(plugin: { command: string }, dir: string): HostileCase[] {
  const secretFile = join(dir, 'stolen.txt');
  writeFileSync(secretFile, 'not for you');
  const user = (doc: Doc): Doc => doc['users'][0]['user'];
  const cluster = (doc: Doc): Doc => doc['clusters'][0]['cluster'];
  return [
    {
      name: 'an exec credential plugin',
      capability: 'exec',
      alter: (doc) => {
        doc['users'][0]['user'] = {
          exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin.command, interactiveMode: 'Never' },
        };
      },
    },
    {
      name: 'an auth-provider with a cmd-path',
      capability: 'authProvider',
      alter: (doc) => {
        doc['users'][0]['user'] = { 'auth-provider': { name: 'gcp', config: { 'cmd-path': plugin.command, 'cmd-args': 'token' } } };
      },
    },
    {
      name: 'a certificate-authority file',
      capability: 'localFiles',
      alter: (doc) => {
        cluster(doc)['certificate-authority'] = secretFile;
      },
    },
    {
      name: 'a client-key file',
      capability: 'localFiles',
      alter: (doc) => {
        user(doc)['client-key'] = secretFile;
      },
    },
    {
      name: 'a client-certificate file',
      capability: 'localFiles',
      alter: (doc) => {
        user(doc)['client-certificate'] = secretFile;
      },
    },
    {
      name: 'a token file',
      capability: 'localFiles',
      alter: (doc) => {
        doc['users'][0]['user'] = { tokenFile: secretFile };
      },
    },
    {
      name: 'insecure-skip-tls-verify',
      capability: 'insecureTransport',
      alter: (doc) => {
        cluster(doc)['insecure-skip-tls-verify'] = true;
      },
    },
    {
      name: 'a plain http:// server',
      capability: 'insecureTransport',
      alter: (doc) => {
        cluster(doc)['server'] = String(cluster(doc)['server']).replace('https://', 'http://');
      },
    },
  ];
}

/** The secret material of a kubeconfig doc (token, key, certificate), to check it never leaks. */
export function credentialsOf(doc: Doc): string[] {
  const user = doc['users'][0]['user'] as Doc;
  return ['token', 'client-key-data', 'client-certificate-data']
    .map((k) => user[k])
    .filter((v): v is string => typeof v === 'string' && v.length > 0)
    .flatMap((v) => [v, Buffer.from(v, 'base64').toString('utf8').split('\n')[1] ?? v]);
}

export function toText(doc: Doc): string {
  return JSON.stringify(doc, null, 1);
}
