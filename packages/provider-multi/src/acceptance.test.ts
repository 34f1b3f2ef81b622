/**
 * MultiProvider runs the provider acceptance suite twice: once where each member is a provider of its own (a
 * SingleClusterProvider added with `add` and taken out with `remove`, so `"<provider>#<cluster>"` names come and go
 * with providers), once over one KubeconfigFileProvider whose files come and go (so membership changes inside a
 * running member provider reach the composition).
 */
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newCluster, SingleClusterProvider } from '@multicluster-runtime/core';
import { describeProviderAcceptance, kubeconfigOf, type AcceptanceMember } from '@multicluster-runtime/core/testing';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { KubeconfigFileProvider } from '@multicluster-runtime/provider-kubeconfig';
import { MultiProvider } from './index.js';

describeProviderAcceptance({
  name: 'MultiProvider of providers added and removed',
  async setup() {
    const host = await startApiServer({ name: 'host' });
    const servers = new Map<string, ApiServer>();
    const multi = new MultiProvider();
    // A fresh provider (and cluster instance) each time, as an application adds one for a new region.
    const addProvider = (providerName: string) =>
      multi.add(
        providerName,
        new SingleClusterProvider('cluster', newCluster(kubeconfigOf(servers.get(providerName)!), { name: providerName })),
      );
    const providerOf = (m: AcceptanceMember) => m.name.slice(0, m.name.indexOf('#'));
    return {
      host: kubeconfigOf(host),
      provider: () => multi,
      async addMember() {
        const providerName = `region-${servers.size + 1}`;
        const server = await startApiServer({ name: providerName });
        servers.set(providerName, server);
        await addProvider(providerName);
        return { name: `${providerName}#cluster`, kubeconfig: kubeconfigOf(server) };
      },
      removeMember: (m: AcceptanceMember) => multi.remove(providerOf(m)),
      restoreMember: (m: AcceptanceMember) => addProvider(providerOf(m)),
      async close() {
        await Promise.all([host, ...servers.values()].map((s) => s.close()));
      },
    };
  },
});

describeProviderAcceptance({
  name: 'MultiProvider over a KubeconfigFileProvider',
  async setup() {
    const dir = await mkdtemp(join(tmpdir(), 'mcr-acceptance-multi-'));
    const host = await startApiServer({ name: 'host' });
    const servers = new Map<string, ApiServer>();
    let tokens = 0;
    const multi = new MultiProvider();
    await multi.add(
      'files',
      new KubeconfigFileProvider({
        paths: [dir],
        debounceMs: 50,
        probeTimeoutMs: 5_000,
        waitCacheTimeoutMs: 10_000,
        retry: { initialMs: 50, maxMs: 500 },
      }),
    );
    const file = (name: string) => join(dir, `${name}.yaml`);
    const put = async (name: string, kubeconfig: string) => {
      await writeFile(join(dir, `.${name}.tmp`), kubeconfig);
      await rename(join(dir, `.${name}.tmp`), file(name));
    };
    // `files#<path>+<context>`; envtest names the context after the server.
    const memberOf = (name: string) => `files#${file(name)}+${name}`;
    const serverOf = (m: AcceptanceMember) => [...servers.keys()].find((n) => memberOf(n) === m.name)!;
    return {
      host: kubeconfigOf(host),
      provider: () => multi,
      async addMember() {
        const name = `member-${servers.size + 1}`;
        const server = await startApiServer({ name });
        servers.set(name, server);
        await put(name, server.kubeconfig());
        return { name: memberOf(name), kubeconfig: kubeconfigOf(server) };
      },
      removeMember: (m: AcceptanceMember) => rm(file(serverOf(m))),
      restoreMember: (m: AcceptanceMember) => put(serverOf(m), servers.get(serverOf(m))!.kubeconfig()),
      async rotateMember(m: AcceptanceMember) {
        const name = serverOf(m);
        const token = `rotated-${++tokens}`;
        servers.get(name)!.addToken(token, 'admin');
        const kubeconfig = servers.get(name)!.kubeconfig({ user: { token } });
        await put(name, kubeconfig);
        return { name: m.name, kubeconfig: kubeconfigOf(kubeconfig) };
      },
      async close() {
        await Promise.all([host, ...servers.values()].map((s) => s.close()));
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
});
