/**
 * The real kube-apiserver tier: starts etcd + kube-apiserver from KUBEBUILDER_ASSETS and checks the environment
 * through real HTTP, real files and real processes. Without KUBEBUILDER_ASSETS the file registers one skipped
 * test that says why.
 */
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TokenUser } from '../auth/token-user.js';
import { conformanceSuite } from '../conformance/suite.js';
import { assetsDirFromEnv } from './assets.js';
import { CrdInstallError, TestEnvironmentStoppedError } from './errors.js';
import { startTestEnvironment, type TestEnvironment } from './test-environment.js';

const assetsDir = assetsDirFromEnv();

/** Sends one request with the credentials of a kubeconfig-equivalent (client cert or token). */
function call(
  env: TestEnvironment,
  method: string,
  path: string,
  auth: { token?: string; cert?: boolean } = { cert: true },
  body?: unknown,
): Promise<{ status: number; json: any }> {
  const { certPem, keyPem } = adminCredentials(env);
  return new Promise((resolve, reject) => {
    const req = request(
      `${env.url}${path}`,
      {
        method,
        agent: false,
        ca: env.caPem,
        ...(auth.cert ? { cert: certPem, key: keyPem } : {}),
        headers: {
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(auth.token ? { authorization: `Bearer ${auth.token}` } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown = text;
          try {
            json = JSON.parse(text);
          } catch {
            // not JSON (e.g. "ok")
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Reads the admin certificate back out of the kubeconfig, as a client would. */
function adminCredentials(env: TestEnvironment): { certPem: string; keyPem: string } {
  const kc = env.kubeconfig();
  const field = (name: string) => Buffer.from(new RegExp(`${name}: (\\S+)`).exec(kc)![1]!, 'base64').toString();
  return { certPem: field('client-certificate-data'), keyPem: field('client-key-data') };
}

/** Processes whose command line mentions `needle` (the environment's temp folder). */
async function processesMentioning(needle: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(needle)) pids.push(Number(entry));
  }
  return pids;
}

const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } },
        },
      },
    ],
  },
};

if (!assetsDir) {
  it.skip('real kube-apiserver tier skipped: KUBEBUILDER_ASSETS not set; run tools/kube-apiserver/build.sh and export KUBEBUILDER_ASSETS to the folder it prints', () => {});
} else {
  // The in-memory server's defaults, which the suite asserts: every authenticated user may do everything, and a
  // request without credentials is 401 rather than kube-apiserver's anonymous user.
  conformanceSuite('real kube-apiserver', async () => {
    const env = await startTestEnvironment({ authorization: 'AlwaysAllow', apiServerFlags: { 'anonymous-auth': 'false' } });
    return {
      kubeconfig: env.kubeconfig(),
      url: env.url,
      close: () => env.stop(),
      addToken: (token, user, options) => env.addToken(token, user as TokenUser, options), // as a JavaScript caller would: checked at run time
    };
  });

  describe('startTestEnvironment (real kube-apiserver + etcd)', () => {
    let parent: string;
    let env: TestEnvironment;

    beforeAll(async () => {
      parent = await mkdtemp(join(tmpdir(), 'mcr-real-test-'));
      const t0 = performance.now();
      env = await startTestEnvironment({
        crds: [widgetCrd],
        tmpDir: parent,
        tokens: [{ token: 'alice-token', user: 'alice', groups: ['dev'] }],
      });
      // .ci/run shows this line: the start time of one environment is a tracked figure.
      console.log(`::: real environment (etcd + kube-apiserver + 1 CRD) started in ${Math.round(performance.now() - t0)} ms`);
    }, 120_000);

    afterAll(async () => {
      await env?.stop();
      await rm(parent, { recursive: true, force: true });
    });

    it('serves the API over TLS to the admin client certificate and reports its version', async () => {
      const version = await call(env, 'GET', '/version');
      expect(version.status).toBe(200);
      expect(version.json.gitVersion).toMatch(/^v1\.\d+\.\d+/);
      const namespaces = await call(env, 'GET', '/api/v1/namespaces');
      expect(namespaces.status).toBe(200);
      expect(namespaces.json.items.map((ns: any) => ns.metadata.name)).toContain('default');
    });

    it('authenticates the admin token, and authorizes other token users and anonymous requests through RBAC only', async () => {
      expect((await call(env, 'GET', '/api/v1/namespaces', { token: env.adminToken })).status).toBe(200);
      const alice = await call(env, 'GET', '/api/v1/namespaces', { token: 'alice-token' });
      expect(alice.status).toBe(403);
      expect(alice.json.message).toContain('"alice"');
      expect((await call(env, 'GET', '/api/v1/namespaces', { token: 'wrong-token' })).status).toBe(401);
      // No credentials: kube-apiserver's default anonymous user, which RBAC allows only the public info paths.
      expect((await call(env, 'GET', '/api/v1/namespaces', {})).status).toBe(403);
      expect((await call(env, 'GET', '/version', {})).status).toBe(200);
    });

    it('accepts tokens added while running, as the user and groups given', async () => {
      expect((await call(env, 'GET', '/api/v1/namespaces', { token: 'bob-token' })).status).toBe(401);
      env.addToken('bob-token', 'bob');
      const bob = await call(env, 'GET', '/api/v1/namespaces', { token: 'bob-token' });
      expect(bob.status).toBe(403);
      expect(bob.json.message).toContain('User "bob" cannot list resource "namespaces"');
      env.addToken('carol-token', { username: 'carol', groups: ['system:masters'] });
      expect((await call(env, 'GET', '/api/v1/namespaces', { token: 'carol-token' })).status).toBe(200);
    });

    it('has installed the CRDs and serves their resources, with the status subresource', async () => {
      // The first create within 2 s of a CRD becoming Established sleeps 2 s in kube-apiserver (an HA safeguard
      // in apiextensions' customresource_handler.go), so this test is slower than the others by design.
      const created = await call(
        env,
        'POST',
        '/apis/example.com/v1/namespaces/default/widgets',
        { cert: true },
        {
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: { name: 'w1' },
          spec: { size: 3, unknown: 'pruned' },
          status: { dropped: true },
        },
      );
      expect(created.status).toBe(201);
      expect(created.json.spec).toEqual({ size: 3 });
      expect(created.json.status).toBeUndefined();
    });

    it('gives a kubeconfig that client-node uses as admin, and one for a token user', async () => {
      const admin = new KubeConfig();
      admin.loadFromString(env.kubeconfig());
      const namespaces = await admin.makeApiClient(CoreV1Api).listNamespace();
      expect(namespaces.items.map((ns) => ns.metadata?.name)).toContain('kube-system');
      const alice = new KubeConfig();
      alice.loadFromString(env.kubeconfig({ user: { token: 'alice-token' } }));
      await expect(alice.makeApiClient(CoreV1Api).listNamespace()).rejects.toMatchObject({ code: 403 });
    });

    it('gives a kubeconfig file that kubectl accepts', async () => {
      const path = join(parent, 'kubeconfig.yaml');
      await env.writeKubeconfig(path);
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      const { stdout } = await promisify(execFile)(
        'kubectl',
        ['--kubeconfig', path, '--cache-dir', join(parent, 'kubectl-cache'), 'get', 'crd', '-o', 'name'],
        {
          timeout: 30_000,
        },
      );
      expect(stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/widgets.example.com');
    });

    it('renders kubeconfigs for the admin certificate and for tokens', () => {
      expect(env.kubeconfig()).toContain('client-certificate-data:');
      const tokenConfig = env.kubeconfig({ user: { token: 'alice-token' }, namespace: 'team-a' });
      expect(tokenConfig).toContain('token: alice-token');
      expect(tokenConfig).toContain('namespace: team-a');
      expect(tokenConfig).not.toContain('client-key-data');
    });

    it('restarts kube-apiserver on the same URL with the same data, ending open watches', async () => {
      expect((await call(env, 'POST', '/api/v1/namespaces', { cert: true }, { metadata: { name: 'survives-restart' } })).status).toBe(201);
      const { certPem, keyPem } = adminCredentials(env);
      // Restart only once the watch is established, so what ends it is the restart and not a refused connection.
      const watch = await new Promise<IncomingMessage>((resolve, reject) => {
        const req = request(
          `${env.url}/api/v1/namespaces?watch=true`,
          { agent: false, ca: env.caPem, cert: certPem, key: keyPem },
          resolve,
        );
        req.on('error', reject);
        req.end();
      });
      expect(watch.statusCode).toBe(200);
      watch.resume();
      watch.on('error', () => {}); // an aborted stream is one of the ways a watch ends; `close` follows either way
      const watchEnded = new Promise<void>((resolve) => watch.once('close', resolve));
      const before = env.pids.kubeApiServer;
      await env.restartApiServer();
      expect(env.pids.kubeApiServer).not.toBe(before);
      await watchEnded;
      expect((await call(env, 'GET', '/api/v1/namespaces/survives-restart')).status).toBe(200);
    }, 120_000);

    it('runs several environments side by side, each with its own data and its own CA', async () => {
      const others = await Promise.all([startTestEnvironment({ tmpDir: parent }), startTestEnvironment({ tmpDir: parent })]);
      try {
        const [a, b] = others;
        expect(new Set([env.url, a.url, b.url]).size).toBe(3);
        expect((await call(a, 'POST', '/api/v1/namespaces', { cert: true }, { metadata: { name: 'only-in-a' } })).status).toBe(201);
        expect((await call(a, 'GET', '/api/v1/namespaces/only-in-a')).status).toBe(200);
        expect((await call(b, 'GET', '/api/v1/namespaces/only-in-a')).status).toBe(404);
        expect((await call(env, 'GET', '/api/v1/namespaces/only-in-a')).status).toBe(404);
        // Each environment trusts only its own CA, so one environment's admin certificate is useless on another.
        expect(new Set([env.caPem, a.caPem, b.caPem]).size).toBe(3);
        const crossed = { ...a, kubeconfig: () => env.kubeconfig(), caPem: a.caPem } as TestEnvironment;
        await expect(call(crossed, 'GET', '/api/v1/namespaces')).resolves.toMatchObject({ status: 401 });
      } finally {
        await Promise.all(others.map((other) => other.stop()));
      }
    }, 120_000);
  });

  describe('startTestEnvironment cleanup (real kube-apiserver + etcd)', () => {
    let parent: string;
    afterEach(async () => {
      await rm(parent, { recursive: true, force: true });
    });

    it('stop() ends both processes and removes the temp folder; a second stop() is a no-op', async () => {
      parent = await mkdtemp(join(tmpdir(), 'mcr-real-test-'));
      const env = await startTestEnvironment({ tmpDir: parent });
      expect(await processesMentioning(env.dir)).toHaveLength(2);
      await env.stop();
      await env.close();
      await expect(env.restartApiServer()).rejects.toBeInstanceOf(TestEnvironmentStoppedError);
      expect(await processesMentioning(env.dir)).toEqual([]);
      await expect(stat(env.dir)).rejects.toMatchObject({ code: 'ENOENT' });
      await expect(call(env, 'GET', '/version')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    }, 120_000);

    it('a rejected CRD fails the start with CrdInstallError and leaves no process or folder behind', async () => {
      parent = await mkdtemp(join(tmpdir(), 'mcr-real-test-'));
      const bad = { ...widgetCrd, metadata: { name: 'wrong-name.example.com' } };
      const err = await startTestEnvironment({ tmpDir: parent, crds: [bad] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CrdInstallError);
      expect((err as Error).message).toContain('wrong-name.example.com');
      expect(await readdir(parent)).toEqual([]);
      expect(await processesMentioning(parent)).toEqual([]);
    }, 120_000);

    it('an abort during the start rejects with the abort reason and leaves nothing behind', async () => {
      parent = await mkdtemp(join(tmpdir(), 'mcr-real-test-'));
      const controller = new AbortController();
      const starting = startTestEnvironment({ tmpDir: parent, signal: controller.signal });
      // Abort once etcd runs, i.e. in the middle of the start.
      await expect.poll(async () => (await processesMentioning(parent)).length, { timeout: 30_000, interval: 20 }).toBeGreaterThan(0);
      const reason = new Error('test aborted the start');
      controller.abort(reason);
      await expect(starting).rejects.toBe(reason);
      expect(await readdir(parent)).toEqual([]);
      expect(await processesMentioning(parent)).toEqual([]);
    }, 120_000);
  });
}
