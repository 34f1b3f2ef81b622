import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createLogger, newCluster, newManager, type KubeObject } from '@multicluster-runtime/core';
import { loadUntrustedKubeconfig } from '@multicluster-runtime/core/kubeconfig';
import { createCertificateAuthority, startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { KubeconfigFileProvider } from '@multicluster-runtime/provider-kubeconfig';
import { WebhookConfigurationKeeper } from './keeper.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const kind = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration' };
type Configuration = KubeObject & { webhooks: { clientConfig: { url: string; caBundle: string }; sideEffects: string }[] };

async function until<T>(what: string, attempt: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await attempt().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function fleet() {
  const dir = await mkdtemp(join(tmpdir(), 'keeper-'));
  const [host, member] = await Promise.all([startApiServer({ name: 'host' }), startApiServer({ name: 'member' })]);
  cleanups.push(
    () => rm(dir, { recursive: true, force: true }),
    () => host.close(),
    () => member.close(),
  );
  await writeFile(join(dir, 'member.kubeconfig'), member.kubeconfig());
  const memberCluster = newCluster(loadUntrustedKubeconfig(member.kubeconfig()));
  cleanups.push(() => memberCluster.close());
  const client = memberCluster.apiReader;
  const ca = await createCertificateAuthority({ commonName: 'first-ca' });
  const caFile = join(dir, 'ca.crt');
  await writeFile(caFile, ca.certPem);
  return { dir, host, member, client, caFile, caPem: ca.certPem };
}

function start(host: ApiServer, dir: string, caFile: string) {
  const mgr = newManager(loadUntrustedKubeconfig(host.kubeconfig()), new KubeconfigFileProvider({ paths: [join(dir, '*.kubeconfig')] }), {
    logger: createLogger({ level: 'error' }),
  });
  const keeper = new WebhookConfigurationKeeper(mgr, {
    url: 'https://webhooks.example.com:9443/base/',
    caFile,
    mutating: {
      name: 'widgets.example.com',
      webhooks: [
        {
          name: 'mwidget.example.com',
          path: '/mutate',
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        },
      ],
    },
  });
  mgr.add(keeper);
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  return {
    keeper,
    stop: async () => {
      stop.abort();
      await running;
    },
  };
}

describe('WebhookConfigurationKeeper', () => {
  test('writes the member URL and CA, follows a CA rotation, and leaves configurations in place when the process stops', async () => {
    const f = await fleet();
    const m = start(f.host, f.dir, f.caFile);
    const stopOnce = m.stop;
    cleanups.push(() => stopOnce().catch(() => undefined));
    const first = await until('the configuration', () => f.client.get<Configuration>(kind, { name: 'widgets.example.com' }));
    const name = `${join(f.dir, 'member.kubeconfig')}+${loadUntrustedKubeconfig(f.member.kubeconfig()).getCurrentContext()}`;
    expect(first.webhooks[0]!.clientConfig.url).toBe(
      `https://webhooks.example.com:9443/base/clusters/~${Buffer.from(name).toString('base64url')}/mutate`,
    );
    expect(Buffer.from(first.webhooks[0]!.clientConfig.caBundle, 'base64').toString()).toBe(f.caPem);
    expect(first.webhooks[0]!.sideEffects).toBe('None');
    expect(first.metadata.labels).toEqual({ 'app.kubernetes.io/managed-by': 'multicluster-runtime-webhook' });

    const next = await createCertificateAuthority({ commonName: 'second-ca' });
    await writeFile(f.caFile, next.certPem + f.caPem); // overlap: the new CA first, the old one still trusted
    await until('the rotated CA bundle', async () => {
      const got = await f.client.get<Configuration>(kind, { name: 'widgets.example.com' });
      return Buffer.from(got.webhooks[0]!.clientConfig.caBundle, 'base64').toString() === next.certPem + f.caPem ? got : undefined;
    });

    await m.stop();
    // Stopping (a rollout, a crash) is not leaving the fleet: the member keeps its configuration.
    expect((await f.client.get<Configuration>(kind, { name: 'widgets.example.com' })).webhooks).toHaveLength(1);
  });

  test('options are validated', () => {
    const mgr = { getProvider: () => undefined };
    const base = { url: 'https://x.example.com', caBundle: '-----BEGIN CERTIFICATE-----\nMA==\n-----END CERTIFICATE-----' };
    const webhooks = [{ name: 'v.example.com', path: '/v', rules: [] }];
    expect(
      () => new WebhookConfigurationKeeper(mgr, { ...base, url: 'http://x.example.com', validating: { name: 'v', webhooks } }),
    ).toThrow(/https/);
    expect(() => new WebhookConfigurationKeeper(mgr, { ...base })).toThrow(/validating and\/or mutating/);
    expect(
      () => new WebhookConfigurationKeeper(mgr, { ...base, validating: { name: 'v', webhooks: [{ ...webhooks[0]!, name: 'short' }] } }),
    ).toThrow(/fully qualified/);
    expect(() => new WebhookConfigurationKeeper(mgr, { ...base, caFile: '/ca.crt', validating: { name: 'v', webhooks } })).toThrow(
      /exactly one of caFile/,
    );
    expect(() => new WebhookConfigurationKeeper(mgr, { ...base, validating: { name: 'v', webhooks } })).toThrow(/unreadable certificate/);
  });
});
