/**
 * Core's test kit from the outside: a provider author's project, installed from the tarballs with vitest and envtest,
 * runs the provider acceptance suite from `@multicluster-runtime/core/testing` with its own vitest. Proves the
 * subpath export, its declarations and the optional vitest peer work where nothing is hoisted from the repository.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify, stripVTControlCharacters } from 'node:util';

const run = promisify(execFile);

/** The author's test file: core's SingleClusterProvider over an envtest server, as a fixed fleet. */
export const acceptanceTestFile = `
import { newCluster, SingleClusterProvider } from '@multicluster-runtime/core';
import { describeProviderAcceptance, kubeconfigOf, type AcceptanceMember } from '@multicluster-runtime/core/testing';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';

describeProviderAcceptance({
  name: 'SingleClusterProvider from the tarball',
  async setup() {
    const host = await startApiServer({ name: 'host' });
    const servers: ApiServer[] = [host];
    let member: AcceptanceMember | undefined;
    return {
      host: kubeconfigOf(host),
      addsAfterStart: false,
      async addMember() {
        const server = await startApiServer({ name: 'single' });
        servers.push(server);
        member = { name: 'single', kubeconfig: kubeconfigOf(server) };
        return member;
      },
      provider: () => new SingleClusterProvider(member!.name, newCluster(member!.kubeconfig, { name: member!.name })),
      async close() {
        await Promise.all(servers.map((s) => s.close()));
      },
    };
  },
});
`;

/** Runs the project's own vitest once; resolves with its output, rejects with it when a test failed. */
export async function runVitestInProject(dir: string, signal?: AbortSignal): Promise<string> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(dir, 'node_modules/vitest/vitest.mjs'), 'run'], {
      cwd: dir,
      signal,
      maxBuffer: 16 * 1024 * 1024,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: dir, CI: '1', NO_COLOR: '1' },
    });
    return stripVTControlCharacters(`${stdout}${stderr}`);
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    const output = stripVTControlCharacters(`${e.stdout ?? ''}${e.stderr ?? ''}`);
    throw new Error(`vitest failed in ${dir}:\n${output || String(err)}`, { cause: err });
  }
}
