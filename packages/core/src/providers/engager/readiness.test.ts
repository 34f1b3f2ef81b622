/**
 * `fleetReadiness` through a real manager and its `/readyz` over HTTP: a provider with a healthy member, one whose
 * API server accepts connections and never answers (its first attempt is still running) and one that refuses them.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { newManager } from '../../manager/manager.js';
import { ManagerConfigError } from '../../manager/errors.js';
import { silentLogger } from '../../log/logger.js';
import { NopProvider } from '../nop.js';
import type { FleetReadiness } from './readiness.js';
import { ListProvider, kubeconfigAt } from './list-provider.test-util.js';

let healthy: ApiServer;
let silent: Server;
const sockets = new Set<Socket>();

beforeAll(async () => {
  healthy = await startApiServer({ name: 'healthy' });
  // Accepts TCP connections and never says a word: a connection attempt that only a timeout ends.
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
  await healthy.close();
});

async function readyz(address: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://${address}/readyz/fleet`);
  return { status: res.status, body: await res.text() };
}

async function withManager(level: FleetReadiness, run: (address: string) => Promise<void>): Promise<void> {
  const host = new KubeConfig();
  host.loadFromString(healthy.kubeconfig());
  const silentPort = (silent.address() as AddressInfo).port;
  const provider = new ListProvider([
    [
      'healthy',
      (() => {
        const kc = new KubeConfig();
        kc.loadFromString(healthy.kubeconfig());
        return kc;
      })(),
    ],
    ['silent', kubeconfigAt(`https://127.0.0.1:${silentPort}`)],
    ['refusing', kubeconfigAt('https://127.0.0.1:1')],
  ]);
  const mgr = newManager(host, provider, { logger: silentLogger, healthProbeBindAddress: '127.0.0.1:0', fleetReadiness: level });
  const stop = new AbortController();
  const done = mgr.start(stop.signal);
  try {
    await vi.waitFor(() => expect(mgr.addresses().healthProbe).toBeDefined(), { timeout: 10_000 });
    await run(mgr.addresses().healthProbe!);
  } finally {
    stop.abort();
    await done;
  }
}

describe('fleetReadiness', () => {
  test("'attempted': not ready while a cluster's first attempt runs, ready once every cluster was tried", async () => {
    await withManager('attempted', async (address) => {
      // One answer is checked whole: the state it shows lasts only until the silent member's probe times out.
      await vi.waitFor(
        async () =>
          expect(await readyz(address)).toEqual({
            status: 500,
            body: expect.stringMatching(/\[-\]fleet failed: 1 cluster not tried yet: silent \(pending\)/),
          }),
        { timeout: 10_000 },
      );
      // The probe of `silent` times out after 3 s: it has been tried, and the fleet no longer holds readiness back.
      await vi.waitFor(async () => expect(await readyz(address)).toEqual({ status: 200, body: 'ok' }), { timeout: 15_000 });
    });
  }, 30_000);

  test("'engaged': not ready while any known cluster is not engaged, naming them", async () => {
    await withManager('engaged', async (address) => {
      await vi.waitFor(
        async () => {
          const { status, body } = await readyz(address);
          expect(status).toBe(500);
          expect(body).toMatch(/2 clusters not engaged: .*refusing \(unreachable\)/);
          expect(body).toContain('silent (');
          expect(body).not.toContain('healthy');
        },
        { timeout: 15_000 },
      );
    });
  }, 30_000);

  test('a provider that reports no statuses is refused when the manager is made', () => {
    const host = new KubeConfig();
    host.loadFromString(healthy.kubeconfig());
    expect(() => newManager(host, new NopProvider(), { fleetReadiness: 'engaged' })).toThrow(ManagerConfigError);
    expect(() => newManager(host, undefined, { fleetReadiness: 'attempted' })).toThrow(
      /fleetReadiness needs a provider that reports cluster statuses/,
    );
    expect(() => newManager(host, undefined, { fleetReadiness: 'all' as FleetReadiness })).toThrow(
      /fleetReadiness must be one of "attempted", "engaged"/,
    );
  });
});
