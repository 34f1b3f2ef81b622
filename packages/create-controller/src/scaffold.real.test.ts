/**
 * The real tier (needs KUBEBUILDER_ASSETS and kubectl, else one skipped test says why): what a scaffold deploys is
 * accepted by a real kube-apiserver, and is enough. Every provider's deploy/ passes `kubectl apply --dry-run=server`;
 * then the kubeconfig-Secrets project, built with its own tsconfig, runs as a process with its ServiceAccount's token
 * (made by `kubectl create token`) under the real RBAC authorizer, with one member (the same API server, reached
 * with the token of deploy/member/'s ServiceAccount through a kubeconfig Secret), and reconciles: a rule missing
 * from the manifests would fail there as Forbidden.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { assetsDirFromEnv, startTestEnvironment, type TestEnvironment } from '@multicluster-runtime/envtest/real';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { providerIds } from './providers.js';
import { scaffold } from './scaffold.js';

const KUBECTL = ['/usr/bin/kubectl', '/usr/local/bin/kubectl'].find((p) => existsSync(p));
const repoRoot = resolve(import.meta.dirname, '../../..');
const run = promisify(execFile);

if (!assetsDirFromEnv() || !KUBECTL) {
  test.skip(`real tier skipped: ${KUBECTL ? 'KUBEBUILDER_ASSETS is not set (tools/kube-apiserver/build.sh builds the binaries)' : 'kubectl is not installed'}`, () => {});
} else {
  describe('a scaffolded controller on a real kube-apiserver', () => {
    let env: TestEnvironment;
    let work: string;
    const kubectl = async (...args: string[]): Promise<string> => {
      try {
        return (await run(KUBECTL, ['--kubeconfig', join(work, 'admin.kubeconfig'), '--cache-dir', join(work, '.kube-cache'), ...args]))
          .stdout;
      } catch (err) {
        const e = err as { stdout?: string; stderr?: string };
        throw new Error(`kubectl ${args.join(' ')}: ${e.stderr ?? ''}${e.stdout ?? ''}`);
      }
    };
    const getJson = async <T>(...args: string[]): Promise<T | undefined> => {
      const out = await kubectl('get', ...args, '-o', 'json', '--ignore-not-found');
      return out.trim() ? (JSON.parse(out) as T) : undefined;
    };

    beforeAll(async () => {
      env = await startTestEnvironment();
      // Under the repository's node_modules, so the built project resolves @multicluster-runtime/* to the workspace.
      mkdirSync(join(repoRoot, 'node_modules/.cache'), { recursive: true });
      work = mkdtempSync(join(repoRoot, 'node_modules/.cache/create-controller-real-'));
      await env.writeKubeconfig(join(work, 'admin.kubeconfig'));
      for (const provider of providerIds) scaffold({ dir: join(work, provider), name: `ctl-${provider}`, provider });
    }, 180_000);
    afterAll(async () => {
      await env?.stop();
      if (work) rmSync(work, { recursive: true, force: true });
    }, 60_000);

    test("every provider's deploy/ is accepted by the API server (kubectl apply --dry-run=server)", async () => {
      for (const provider of providerIds) {
        const deploy = join(work, provider, 'deploy');
        await kubectl('apply', '-f', join(deploy, '00-namespace.yaml')); // namespaced objects need their namespace
        const out = await kubectl('apply', '--dry-run=server', '-R', '-f', deploy);
        const documents = (readFileSync(join(deploy, '10-rbac.yaml'), 'utf8').match(/^kind: /gm) ?? []).length;
        expect(out, provider).toContain(`deployment.apps/ctl-${provider} created (server dry run)`);
        expect(out.match(/\(server dry run\)/g)?.length, provider).toBeGreaterThanOrEqual(documents + 2);
      }
    }, 120_000);

    test('the kubeconfig-Secrets controller runs with its ServiceAccount under RBAC and reconciles a member', async () => {
      const name = 'ctl-kubeconfig-secrets';
      const ns = `${name}-system`;
      const dir = join(work, 'kubeconfig-secrets');
      await run(join(repoRoot, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], { cwd: dir });

      await kubectl('apply', '-R', '-f', join(dir, 'deploy'));
      const hostToken = (await kubectl('create', 'token', name, '-n', ns)).trim();
      const memberToken = (await kubectl('create', 'token', `${name}-member`, '-n', ns)).trim();
      // The host identity is least-privileged: Secrets outside its namespace are not its to read.
      await expect(
        run(KUBECTL, ['--server', env.url, '--token', hostToken, '--insecure-skip-tls-verify', 'get', 'secrets', '-A']),
      ).rejects.toThrow(/Forbidden|forbidden/);
      writeFileSync(join(work, 'member-1.kubeconfig'), env.kubeconfig({ user: { token: memberToken } }));
      await kubectl('create', 'secret', 'generic', 'member-1', '-n', ns, `--from-file=kubeconfig=${join(work, 'member-1.kubeconfig')}`);
      await kubectl('label', 'secret', 'member-1', '-n', ns, 'sigs.k8s.io/multicluster-runtime-kubeconfig=true');
      await env.writeKubeconfig(join(work, 'host.kubeconfig'), { user: { token: hostToken } });

      const child = spawn(process.execPath, ['dist/main.js'], {
        cwd: dir,
        env: {
          PATH: process.env['PATH'],
          KUBECONFIG: join(work, 'host.kubeconfig'),
          POD_NAMESPACE: ns,
          METRICS_BIND_ADDRESS: '127.0.0.1:0',
          HEALTH_PROBE_BIND_ADDRESS: '127.0.0.1:0',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
      try {
        await kubectl('create', 'namespace', 'apps');
        await kubectl('create', 'configmap', 'greeting', '-n', 'apps', '--from-literal=hello=world');
        await kubectl('label', 'configmap', 'greeting', '-n', 'apps', `${name}.example.com/reply=true`);

        type ConfigMap = { data?: Record<string, string>; metadata: { finalizers?: string[]; ownerReferences?: { name: string }[] } };
        await expect
          .poll(async () => (await getJson<ConfigMap>('configmap', 'greeting-reply', '-n', 'apps'))?.data, { timeout: 30_000 })
          .toEqual({
            cluster: 'member-1',
            keys: '1',
          });
        expect((await getJson<ConfigMap>('configmap', 'greeting', '-n', 'apps'))?.metadata.finalizers).toEqual([
          `${name}.example.com/cleanup`,
        ]);
        const lease = await getJson<{ spec: { holderIdentity?: string } }>('lease', name, '-n', ns);
        expect(lease?.spec.holderIdentity).toBeTruthy();
        await expect
          .poll(async () =>
            (await getJson<{ items: { reason: string }[] }>('events.events.k8s.io', '-n', 'apps'))?.items.map((e) => e.reason),
          )
          .toContain('ReplyCreated');

        await kubectl('delete', 'configmap', 'greeting', '-n', 'apps', '--wait=false');
        await expect.poll(() => getJson('configmap', 'greeting-reply', '-n', 'apps'), { timeout: 30_000 }).toBeUndefined();
        await expect.poll(() => getJson('configmap', 'greeting', '-n', 'apps'), { timeout: 30_000 }).toBeUndefined();
        expect(output).not.toMatch(/forbidden/i);
      } finally {
        child.kill('SIGTERM');
      }
      expect(await exited, output).toBe(0);
    }, 180_000);
  });
}
