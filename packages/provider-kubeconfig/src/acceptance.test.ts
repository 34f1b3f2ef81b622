/**
 * Both kubeconfig providers run the provider acceptance suite: members are envtest servers, described by labelled
 * Secrets on the host (named after the Secret) or by files in a watched folder (named `<path>+<context>`). Rotation
 * swaps a member's credentials for a fresh bearer token.
 */
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newCluster, type KubeObject } from '@multicluster-runtime/core';
import { describeProviderAcceptance, kubeconfigOf, type AcceptanceMember } from '@multicluster-runtime/core/testing';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { KubeconfigFileProvider } from './file-provider.js';
import { DEFAULT_KUBECONFIG_SECRET_KEY, DEFAULT_KUBECONFIG_SECRET_LABEL, KubeconfigSecretProvider } from './secret-provider.js';

const timings = { probeTimeoutMs: 5_000, waitCacheTimeoutMs: 10_000, retry: { initialMs: 50, maxMs: 500 } };

/** The member servers of one fleet, by the member's name. */
class Members {
  readonly servers = new Map<string, ApiServer>();
  private tokens = 0;

  async start(name: string): Promise<ApiServer> {
    const server = await startApiServer({ name });
    this.servers.set(name, server);
    return server;
  }

  /** A kubeconfig for the member with a new bearer token (same server, new credentials). */
  rotated(name: string, contextName?: string): string {
    const server = this.servers.get(name)!;
    const token = `rotated-${++this.tokens}`;
    server.addToken(token, 'admin');
    return server.kubeconfig({ user: { token }, contextName });
  }

  async close(): Promise<void> {
    await Promise.all([...this.servers.values()].map((s) => s.close()));
  }
}

describeProviderAcceptance({
  name: 'KubeconfigSecretProvider',
  async setup() {
    const namespace = 'fleet';
    const host = await startApiServer({ name: 'host' });
    const admin = newCluster(kubeconfigOf(host), { name: 'host-admin' });
    await admin.apiReader.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    const members = new Members();
    const secret = (name: string, kubeconfig: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace, name, labels: { [DEFAULT_KUBECONFIG_SECRET_LABEL]: 'true' } },
      data: { [DEFAULT_KUBECONFIG_SECRET_KEY]: Buffer.from(kubeconfig).toString('base64') },
    });
    const put = async (name: string, kubeconfig: string) => {
      try {
        const present = await admin.apiReader.get({ apiVersion: 'v1', kind: 'Secret' }, { namespace, name });
        await admin.apiReader.update({ ...secret(name, kubeconfig), metadata: { ...present.metadata } });
      } catch {
        await admin.apiReader.create(secret(name, kubeconfig));
      }
    };
    return {
      host: kubeconfigOf(host),
      provider: () => new KubeconfigSecretProvider({ namespace, ...timings }),
      async addMember() {
        const name = `member-${members.servers.size + 1}`;
        const server = await members.start(name);
        await put(name, server.kubeconfig());
        return { name, kubeconfig: kubeconfigOf(server) };
      },
      async removeMember(m: AcceptanceMember) {
        await admin.apiReader.delete({ apiVersion: 'v1', kind: 'Secret' }, { namespace, name: m.name });
      },
      async restoreMember(m: AcceptanceMember) {
        await put(m.name, members.servers.get(m.name)!.kubeconfig());
      },
      async rotateMember(m: AcceptanceMember) {
        const kubeconfig = members.rotated(m.name);
        await put(m.name, kubeconfig);
        return { name: m.name, kubeconfig: kubeconfigOf(kubeconfig) };
      },
      async close() {
        await admin.close();
        await Promise.all([host.close(), members.close()]);
      },
    };
  },
});

describeProviderAcceptance({
  name: 'KubeconfigFileProvider',
  async setup() {
    const dir = await mkdtemp(join(tmpdir(), 'mcr-acceptance-files-'));
    const host = await startApiServer({ name: 'host' });
    const members = new Members();
    const file = (name: string) => join(dir, `${name}.yaml`);
    // Written beside the file, hidden (the folder's hidden files are ignored), then renamed: never read half-written.
    const put = async (name: string, kubeconfig: string) => {
      const temp = join(dir, `.${name}.tmp`);
      await writeFile(temp, kubeconfig);
      await rename(temp, file(name));
    };
    // The file provider names a cluster `<path>+<context>`; envtest names the context after the server.
    const clusterName = (name: string) => `${file(name)}+${name}`;
    const byClusterName = (m: AcceptanceMember) => [...members.servers.keys()].find((n) => clusterName(n) === m.name)!;
    return {
      host: kubeconfigOf(host),
      provider: () => new KubeconfigFileProvider({ paths: [dir], debounceMs: 50, ...timings }),
      async addMember() {
        const name = `member-${members.servers.size + 1}`;
        const server = await members.start(name);
        await put(name, server.kubeconfig());
        return { name: clusterName(name), kubeconfig: kubeconfigOf(server) };
      },
      async removeMember(m: AcceptanceMember) {
        await rm(file(byClusterName(m)));
      },
      async restoreMember(m: AcceptanceMember) {
        const name = byClusterName(m);
        await put(name, members.servers.get(name)!.kubeconfig());
      },
      async rotateMember(m: AcceptanceMember) {
        const name = byClusterName(m);
        const kubeconfig = members.rotated(name, name);
        await put(name, kubeconfig);
        return { name: m.name, kubeconfig: kubeconfigOf(kubeconfig) };
      },
      async close() {
        await Promise.all([host.close(), members.close()]);
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
});
