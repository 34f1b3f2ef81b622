import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { createLogger, newManager } from '@multicluster-runtime/core';
import { loadUntrustedKubeconfig } from '@multicluster-runtime/core/kubeconfig';
import { startApiServer } from '@multicluster-runtime/envtest';
import { KubeconfigFileProvider } from '@multicluster-runtime/provider-kubeconfig';
import { clusterPath } from '../cluster/resolve.js';
import { withHandler } from '../handlers/webhooks.js';
import { certFiles, review, send } from './https.test-util.js';
import { WebhookServer } from './webhook-server.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

test('with leader election every replica serves reviews for every member, the standby included', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'webhook-replicas-'));
  const [host, member, certs] = await Promise.all([startApiServer({ name: 'host' }), startApiServer({ name: 'member' }), certFiles()]);
  cleanups.push(
    () => rm(dir, { recursive: true, force: true }),
    () => host.close(),
    () => member.close(),
    () => certs.cleanup(),
  );
  const file = join(dir, 'member.kubeconfig');
  await writeFile(file, member.kubeconfig());
  const memberName = `${file}+${loadUntrustedKubeconfig(member.kubeconfig()).getCurrentContext()}`;

  const replicas = ['one', 'two'].map((id) => {
    const mgr = newManager(loadUntrustedKubeconfig(host.kubeconfig()), new KubeconfigFileProvider({ paths: [file] }), {
      logger: createLogger({ level: 'error' }),
      leaderElection: { enabled: true, namespace: 'default', name: 'webhook-replicas', id },
    });
    const server = new WebhookServer(mgr, { certFile: certs.certFile, keyFile: certs.keyFile, host: '127.0.0.1', port: 0 });
    server.register(
      '/who',
      withHandler((ctx) => ({ allowed: false, message: `${id} saw ${ctx.clusterName}` })),
    );
    mgr.add(server);
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    cleanups.push(async () => {
      stop.abort();
      await running;
    });
    let leading = false;
    void mgr.elected().then(() => (leading = true));
    return { id, server, isLeader: () => leading };
  });

  for (const r of replicas) expect(await r.server.waitForReady(AbortSignal.timeout(30_000))).toBe(true);
  // Wait until one replica leads; the other stays a standby.
  while (!replicas.some((r) => r.isLeader())) await new Promise((res) => setTimeout(res, 50));
  expect(replicas.filter((r) => r.isLeader())).toHaveLength(1);
  for (const r of replicas) {
    // The member is engaged on every replica (providers run everywhere), so each one answers for it.
    for (;;) {
      const res = await send(r.server.url + clusterPath(memberName, '/who'), JSON.stringify(review()), { ca: certs.ca.certPem });
      const message = (res.json()['response'] as { status: { message: string } }).status.message;
      if (message === `${r.id} saw ${memberName}`) break;
      expect(message).toBe(`cluster ${JSON.stringify(memberName)} is not engaged with this webhook server`);
      await new Promise((res) => setTimeout(res, 50));
    }
  }
});
