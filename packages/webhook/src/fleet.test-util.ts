/**
 * The end-to-end fleet suite, run on in-memory API servers (fleet.test.ts) and on real kube-apiservers
 * (fleet.real.test.ts): two members discovered from kubeconfig files, one webhook server, a keeper that writes each
 * member's configurations (its own path, the CA bundle), kubectl as the client. A bad object in member A is denied
 * with a message naming A; member B gets a defaulted field; removing B's kubeconfig removes B's configurations.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { createLogger, newManager, type KubeObject } from '@multicluster-runtime/core';
import { loadUntrustedKubeconfig } from '@multicluster-runtime/core/kubeconfig';
import { startApiServer } from '@multicluster-runtime/envtest';
import { KubeconfigFileProvider } from '@multicluster-runtime/provider-kubeconfig';
import { clusterPath } from './cluster/resolve.js';
import { WebhookConfigurationKeeper } from './configuration/keeper.js';
import { denied } from './handlers/result.js';
import { withDefaulter, withValidator } from './handlers/webhooks.js';
import { certFiles } from './server/https.test-util.js';
import { WebhookServer } from './server/webhook-server.js';

const run = promisify(execFile);

/** An API server as the suite needs it. */
export interface Member {
  kubeconfig(): string;
  close(): Promise<void>;
}

type ConfigMap = KubeObject & { data?: Record<string, string> };

async function kubectl(kubeconfig: string, args: string[], stdin?: string): Promise<{ ok: boolean; out: string }> {
  const child = run('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 60_000 });
  if (stdin !== undefined) {
    child.child.stdin!.end(stdin);
  }
  try {
    const { stdout, stderr } = await child;
    return { ok: true, out: stdout + stderr };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    return { ok: false, out: (e.stdout ?? '') + (e.stderr ?? e.message) };
  }
}

/** Retries `attempt` until it returns a value (not undefined), within `ms`. */
async function eventually<T>(what: string, attempt: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await attempt();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const configMap = (name: string, data: Record<string, string>) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data });

export async function fleetSuite(startMember: (name: string) => Promise<Member>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'webhook-fleet-'));
  const cleanups: (() => Promise<unknown>)[] = [() => rm(dir, { recursive: true, force: true })];
  try {
    const [host, a, b, certs] = await Promise.all([
      startApiServer({ name: 'host' }),
      startMember('member-a'),
      startMember('member-b'),
      certFiles(),
    ]);
    cleanups.push(
      () => host.close(),
      () => a.close(),
      () => b.close(),
      () => certs.cleanup(),
    );
    const files = { a: join(dir, 'fleet', 'a.kubeconfig'), b: join(dir, 'fleet', 'b.kubeconfig') };
    const kubeconfigs = { a: join(dir, 'a-admin.kubeconfig'), b: join(dir, 'b-admin.kubeconfig') };
    await run('mkdir', ['-p', join(dir, 'fleet')]);
    await Promise.all([
      writeFile(files.a, a.kubeconfig()),
      writeFile(files.b, b.kubeconfig()),
      writeFile(kubeconfigs.a, a.kubeconfig()),
      writeFile(kubeconfigs.b, b.kubeconfig()),
    ]);
    const nameOf = (file: string, member: Member) => `${file}+${loadUntrustedKubeconfig(member.kubeconfig()).getCurrentContext()}`;
    const memberA = nameOf(files.a, a);
    const memberB = nameOf(files.b, b);

    const logger = createLogger({ level: 'warn' });
    const provider = new KubeconfigFileProvider({ paths: [join(dir, 'fleet')] });
    const mgr = newManager(loadUntrustedKubeconfig(host.kubeconfig()), provider, { logger });
    const server = new WebhookServer(mgr, { certFile: certs.certFile, keyFile: certs.keyFile, host: '127.0.0.1', port: 0 });
    server.register(
      '/validate-configmaps',
      withValidator<ConfigMap>({
        validateCreate: (ctx, obj) => (obj.data?.['bad'] ? denied(`"bad" is not allowed in cluster ${ctx.clusterName}`) : undefined),
      }),
    );
    server.register(
      '/default-configmaps',
      withDefaulter<ConfigMap>({
        default: (ctx, obj) => {
          obj.data = { ...obj.data, defaultedBy: ctx.clusterName.slice(ctx.clusterName.lastIndexOf('/') + 1) };
        },
      }),
    );
    mgr.add(server);
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    cleanups.unshift(async () => {
      stop.abort();
      await running;
    });
    expect(await server.waitForReady(AbortSignal.timeout(60_000))).toBe(true);

    const rules = [{ operations: ['CREATE' as const, 'UPDATE' as const], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];
    const keeper = new WebhookConfigurationKeeper(mgr, {
      url: server.url,
      caFile: certs.caFile,
      validating: { name: 'configmaps.example.com', webhooks: [{ name: 'vconfigmap.example.com', path: '/validate-configmaps', rules }] },
      mutating: { name: 'configmaps.example.com', webhooks: [{ name: 'mconfigmap.example.com', path: '/default-configmaps', rules }] },
    });
    mgr.add(keeper);

    // Each member gets its configurations, pointing at its own path of the one server.
    for (const [kc, name] of [
      [kubeconfigs.a, memberA],
      [kubeconfigs.b, memberB],
    ] as const) {
      const url = await eventually(`the configuration in ${name}`, async () => {
        const got = await kubectl(kc, [
          'get',
          'validatingwebhookconfiguration',
          'configmaps.example.com',
          '-o',
          'jsonpath={.webhooks[0].clientConfig.url}',
        ]);
        return got.ok && got.out ? got.out : undefined;
      });
      expect(url).toBe(`${server.url}${clusterPath(name, '/validate-configmaps')}`);
    }

    // Member A: a bad object is denied, naming member A. (A real API server picks configurations up from an
    // informer: wait with server-side dry runs until it calls the webhook.)
    const bad = configMap('bad-one', { bad: 'yes' });
    await eventually('member A to call the validating webhook', async () => {
      const r = await kubectl(kubeconfigs.a, ['create', '--dry-run=server', '-f', '-'], bad);
      return r.out.includes('denied the request') ? r.out : undefined;
    });
    const applied = await kubectl(kubeconfigs.a, ['apply', '-f', '-'], bad);
    expect(applied.ok).toBe(false);
    expect(applied.out).toContain(
      `admission webhook "vconfigmap.example.com" denied the request: "bad" is not allowed in cluster ${memberA}`,
    );
    expect((await kubectl(kubeconfigs.a, ['get', 'configmap', 'bad-one'])).ok).toBe(false);

    // Member B: the defaulter sets a field, naming member B.
    const good = configMap('good-one', { size: 'small' });
    await eventually('member B to call the mutating webhook', async () => {
      const r = await kubectl(kubeconfigs.b, ['create', '--dry-run=server', '-o', 'json', '-f', '-'], good);
      return r.ok && r.out.includes('defaultedBy') ? r.out : undefined;
    });
    expect((await kubectl(kubeconfigs.b, ['apply', '-f', '-'], good)).ok).toBe(true);
    const stored = JSON.parse((await kubectl(kubeconfigs.b, ['get', 'configmap', 'good-one', '-o', 'json'])).out) as ConfigMap;
    expect(stored.data).toEqual({
      size: 'small',
      defaultedBy: 'b.kubeconfig+' + loadUntrustedKubeconfig(b.kubeconfig()).getCurrentContext(),
    });

    // Removing member B from the fleet removes its configurations; member A keeps its own.
    await unlink(files.b);
    await eventually('member B to lose its configurations', async () => {
      const v = await kubectl(kubeconfigs.b, ['get', 'validatingwebhookconfigurations,mutatingwebhookconfigurations', '-o', 'name']);
      return v.ok && v.out.trim() === '' ? true : undefined;
    });
    const left = await kubectl(kubeconfigs.a, ['get', 'validatingwebhookconfigurations,mutatingwebhookconfigurations', '-o', 'name']);
    expect(left.out.trim().split('\n').sort()).toEqual([
      'mutatingwebhookconfiguration.admissionregistration.k8s.io/configmaps.example.com',
      'validatingwebhookconfiguration.admissionregistration.k8s.io/configmaps.example.com',
    ]);
    // Webhook metrics carry the member: A's denial and B's defaulting are counted per cluster; B's series are gone.
    const metrics = await (mgr.metrics as unknown as { registry: { metrics(): Promise<string> } }).registry.metrics();
    expect(metrics).toContain(`mcr_webhook_denials_total{webhook="/validate-configmaps",cluster="${memberA}"}`);
    expect(metrics).not.toContain(`cluster="${memberB}"`);
  } finally {
    for (const fn of cleanups) await fn().catch(() => undefined);
  }
}
