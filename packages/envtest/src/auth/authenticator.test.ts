/**
 * Who the server thinks is calling, over real TLS. The authenticator reads a connection's client certificate once,
 * which holds only because the connection cannot change it afterwards.
 */
import { once } from 'node:events';
import { connect } from 'node:tls';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, expect, test } from 'vitest';
import { startApiServer } from '../api-server.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

test('a connection cannot renegotiate TLS to present another client certificate, as with kube-apiserver', async () => {
  const server = await startApiServer({ bootstrapPolicy: false });
  cleanups.push(() => server.close());
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig());
  const pem = (data: string | undefined) => Buffer.from(data ?? '', 'base64');
  const socket = connect({
    host: '127.0.0.1',
    port: server.port,
    ca: pem(kc.getCurrentCluster()?.caData),
    cert: pem(kc.getCurrentUser()?.certData),
    key: pem(kc.getCurrentUser()?.keyData),
    // TLS 1.3 has no renegotiation at all; 1.2 has it unless the server refuses.
    maxVersion: 'TLSv1.2',
  });
  cleanups.push(() => socket.destroy());
  await once(socket, 'secureConnect');
  const outcome = await new Promise<string>((resolve) => {
    socket.once('error', (err) => resolve(err.message));
    socket.renegotiate({ rejectUnauthorized: false }, (err) => resolve(err ? err.message : 'renegotiated'));
  });
  expect(outcome).toMatch(/no renegotiation/);
});
