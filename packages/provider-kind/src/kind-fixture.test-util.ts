/**
 * The acceptance fixture of KindProvider over a kind CLI run as a real child process, whose source of truth is the JSON
 * state file of tools/fake-kind (kind cluster names → kubeconfigs of envtest servers): the fake kind reads it
 * directly, and the real kind CLI reads it through tools/fake-kind's docker stand-in. Rotation gives a cluster a
 * kubeconfig with a fresh bearer token.
 */
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kubeconfigOf, type AcceptanceMember, type ProviderAcceptanceFixture } from '@multicluster-runtime/core/testing';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { KindProvider } from './index.js';

export const fakeKindBin = resolve(dirname(fileURLToPath(import.meta.url)), '../../../tools/fake-kind/bin');

/** `binary`: the kind CLI to run; `env`: more of its environment (besides FAKE_KIND_STATE). */
export function kindAcceptanceFixture(name: string, binary: string, env: Record<string, string> = {}): ProviderAcceptanceFixture {
  return {
    name,
    async setup() {
      const dir = await mkdtemp(join(tmpdir(), 'mcr-acceptance-kind-'));
      const statePath = join(dir, 'state.json');
      const host = await startApiServer({ name: 'host' });
      const servers = new Map<string, ApiServer>();
      const clusters: Record<string, string> = {};
      let tokens = 0;
      // Replaced whole by a rename, so a poll never reads a half-written state.
      const save = async () => {
        await writeFile(`${statePath}.tmp`, JSON.stringify({ clusters }));
        await rename(`${statePath}.tmp`, statePath);
      };
      await save();
      return {
        host: kubeconfigOf(host),
        provider: () =>
          new KindProvider({
            binary,
            env: { ...env, FAKE_KIND_STATE: statePath },
            pollIntervalMs: 100,
            timeoutMs: 10_000,
            probeTimeoutMs: 5_000,
            waitCacheTimeoutMs: 10_000,
            retry: { initialMs: 50, maxMs: 500 },
          }),
        async addMember() {
          const name = `kind-${servers.size + 1}`;
          const server = await startApiServer({ name });
          servers.set(name, server);
          clusters[name] = server.kubeconfig();
          await save();
          return { name, kubeconfig: kubeconfigOf(server) };
        },
        async removeMember(m: AcceptanceMember) {
          delete clusters[m.name];
          await save();
        },
        async restoreMember(m: AcceptanceMember) {
          clusters[m.name] = servers.get(m.name)!.kubeconfig();
          await save();
        },
        async rotateMember(m: AcceptanceMember) {
          const server = servers.get(m.name)!;
          const token = `rotated-${++tokens}`;
          server.addToken(token, 'admin');
          clusters[m.name] = server.kubeconfig({ user: { token } });
          await save();
          return { name: m.name, kubeconfig: kubeconfigOf(clusters[m.name]!) };
        },
        async close() {
          await Promise.all([host, ...servers.values()].map((s) => s.close()));
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  };
}
