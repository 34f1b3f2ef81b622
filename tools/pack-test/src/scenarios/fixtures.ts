/**
 * What README examples run against: in-memory API servers with clients to seed them, and a scratch folder for
 * kubeconfig files and state. `close()` releases everything, whatever a scenario got to.
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { isAlreadyExists, type KubeObject } from '@multicluster-runtime/core';
import { ApiClient, DiscoveryRESTMapper, Transport } from '@multicluster-runtime/core/client';
import { createCertificateAuthority, issueServerCertificate, startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { startKcpServer, type KcpServer, type KcpWorkspace } from '@multicluster-runtime/envtest/kcp';
import { startMiloServer, type MiloServer } from '@multicluster-runtime/envtest/milo';
import { startGardenServer, type GardenServer } from '@multicluster-runtime/envtest/gardener';

export interface TestCluster {
  server: ApiServer;
  /** An admin client of this server, for seeding objects. */
  client: ApiClient;
  /** The admin kubeconfig YAML (inline CA and client certificate: acceptable to untrusted-kubeconfig policies). */
  kubeconfig: string;
}

export class ExampleFixtures {
  /** A fresh scratch folder, removed by `close()`. */
  readonly dir: string;
  private readonly servers: { close(): Promise<void> }[] = [];
  private readonly transports: Transport[] = [];

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'readme-example-'));
  }

  async cluster(name: string): Promise<TestCluster> {
    const server = await startApiServer({ name });
    this.servers.push(server);
    return { server, client: this.client(server.kubeconfig()), kubeconfig: server.kubeconfig() };
  }

  /** A fake Milo (Project CRDs on its core API, each project's control plane under Milo's project path). */
  async milo(name: string): Promise<TestCluster & { server: MiloServer; projectClient(project: string): ApiClient }> {
    const server = await startMiloServer({ name });
    this.servers.push(server);
    return {
      server,
      client: this.client(server.kubeconfig()),
      kubeconfig: server.kubeconfig(),
      projectClient: (project) => this.client(server.projectKubeconfig(project)),
    };
  }

  /** A fake Gardener garden (Shoots backed by API servers, kubeconfig subresources issuing expiring tokens). */
  async garden(name: string): Promise<TestCluster & { server: GardenServer }> {
    const server = await startGardenServer({ name });
    this.servers.push(server);
    return { server, client: this.client(server.kubeconfig()), kubeconfig: server.kubeconfig() };
  }

  /** A fake kcp (workspaces, APIExports and bindings, the export's virtual workspace per shard). */
  async kcp(): Promise<{ server: KcpServer; workspaceClient(workspace: KcpWorkspace): ApiClient }> {
    const server = await startKcpServer();
    this.servers.push(server);
    return { server, workspaceClient: (workspace) => this.client(server.kubeconfig(workspace)) };
  }

  /** An admin client for `kubeconfig`, closed by `close()`. */
  private client(kubeconfig: string): ApiClient {
    const kc = new KubeConfig();
    kc.loadFromString(kubeconfig);
    const transport = Transport.forConfig(kc);
    this.transports.push(transport);
    return new ApiClient(transport, new DiscoveryRESTMapper(transport));
  }

  /** Writes `text` to `path` relative to the scratch folder; returns the absolute path. */
  file(path: string, text: string): string {
    const abs = join(this.dir, path);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, text, { mode: 0o600 });
    return abs;
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.transports.map((t) => t.close()));
    await Promise.allSettled(this.servers.map((s) => s.close()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Creates `namespace` unless it exists. */
export async function ensureNamespace(client: ApiClient, namespace: string): Promise<void> {
  try {
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

export function configMap(namespace: string, name: string, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name }, data };
}

/** A Secret the kubeconfig provider's default selector picks up. */
export function kubeconfigSecret(namespace: string, name: string, kubeconfig: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { namespace, name, labels: { 'sigs.k8s.io/multicluster-runtime-kubeconfig': 'true' } },
    data: { kubeconfig: Buffer.from(kubeconfig).toString('base64') },
  };
}

/** A CA and a serving certificate for 127.0.0.1 (webhook examples). */
export async function servingCertificate(): Promise<{ certPem: string; keyPem: string; caPem: string }> {
  const ca = await createCertificateAuthority({ commonName: 'example-webhook-ca' });
  const pair = await issueServerCertificate(ca, { commonName: 'example-webhook' });
  return { ...pair, caPem: ca.certPem };
}

/** A TCP port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Retries `attempt` until it resolves (every 100 ms, for up to `ms`); rethrows its last error after that. */
export async function until<T>(attempt: () => Promise<T>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
