import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { PrometheusMetrics } from '../metrics/prometheus.js';
import { parseBindAddress } from './bind-address.js';
import { HealthChecks } from './checks.js';
import { BindAddressInvalidError, HealthCheckNameError, ListenFailedError } from './errors.js';
import { ProbeServer } from './probe-server.js';

const servers: ProbeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(routes: ConstructorParameters<typeof ProbeServer>[0]): Promise<string> {
  const s = new ProbeServer(routes);
  servers.push(s);
  return `http://${await s.listen({ host: '127.0.0.1', port: 0 })}`;
}

describe('parseBindAddress', () => {
  it('reads host:port, :port, IPv6 and the off values', () => {
    expect(parseBindAddress('127.0.0.1:8080')).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(parseBindAddress(':0')).toEqual({ host: undefined, port: 0 });
    expect(parseBindAddress('[::1]:9090')).toEqual({ host: '::1', port: 9090 });
    expect(parseBindAddress('0')).toBeUndefined();
    expect(parseBindAddress('')).toBeUndefined();
    expect(parseBindAddress(undefined)).toBeUndefined();
  });
  it('rejects malformed addresses with a clear error', () => {
    for (const bad of ['8080', 'localhost:http', 'host:70000', '::1:80', 'a b:1']) {
      expect(() => parseBindAddress(bad), bad).toThrow(BindAddressInvalidError);
    }
  });
});

describe('ProbeServer', () => {
  it('answers ok when every check passes and lists failures with 500', async () => {
    const ready = new HealthChecks();
    let synced = false;
    ready.add('cache-sync', () => synced);
    ready.add('ping', () => {});
    const base = await serve({ readyz: ready, healthz: new HealthChecks() });

    let res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(500);
    const body = await res.text();
    expect(body).toContain('[-]cache-sync failed');
    expect(body).toContain('[+]ping ok');

    synced = true;
    res = await fetch(`${base}/readyz`);
    expect([res.status, await res.text()]).toEqual([200, 'ok']);
    res = await fetch(`${base}/readyz?verbose`);
    expect(await res.text()).toContain('[+]cache-sync ok');
    res = await fetch(`${base}/healthz`);
    expect([res.status, await res.text()]).toEqual([200, 'ok']);
  });

  it('serves one check by name and 404s unknown names and paths', async () => {
    const ready = new HealthChecks();
    ready.add('good', () => {});
    ready.add('bad', () => {
      throw new Error('informer for v1/ConfigMap not synced');
    });
    const base = await serve({ readyz: ready });
    expect((await fetch(`${base}/readyz/good`)).status).toBe(200);
    const bad = await fetch(`${base}/readyz/bad`);
    expect(bad.status).toBe(500);
    expect(await bad.text()).toContain('informer for v1/ConfigMap not synced');
    expect((await fetch(`${base}/readyz/nope`)).status).toBe(404);
    expect((await fetch(`${base}/healthz`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`)).status).toBe(404);
    expect((await fetch(`${base}/readyz`, { method: 'POST' })).status).toBe(405);
  });

  it('fails a check that hangs instead of hanging the probe', async () => {
    const ready = new HealthChecks(50);
    let aborted = false;
    ready.add(
      'hang',
      (signal) =>
        new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => {
            aborted = true;
            resolve();
          }),
        ),
    );
    const base = await serve({ readyz: ready });
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(500);
    expect(await res.text()).toContain('timed out after 50 ms');
    expect(aborted).toBe(true);
  });

  it('serves Prometheus metrics', async () => {
    const m = new PrometheusMetrics();
    m.queueAdd('q', 'east');
    const base = await serve({ metrics: m.registry });
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(await res.text()).toContain('mcr_workqueue_adds_total{name="q",cluster="east"} 1');
  });

  it('rejects bad or duplicate check names', () => {
    const c = new HealthChecks();
    c.add('a', () => {});
    expect(() => c.add('a', () => {})).toThrow(HealthCheckNameError);
    expect(() => c.add('', () => {})).toThrow(HealthCheckNameError);
    expect(() => c.add('x/y', () => {})).toThrow(HealthCheckNameError);
  });

  it('reports a port in use as ListenFailedError and closes cleanly', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const s = new ProbeServer({});
      await expect(s.listen({ host: '127.0.0.1', port })).rejects.toBeInstanceOf(ListenFailedError);
      await s.close();
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  });

  it('close() drops keep-alive connections so shutdown does not wait for clients', async () => {
    const s = new ProbeServer({ healthz: new HealthChecks() });
    const addr = await s.listen({ host: '127.0.0.1', port: 0 });
    await (await fetch(`http://${addr}/healthz`)).text();
    await s.close();
    await expect(fetch(`http://${addr}/healthz`)).rejects.toThrow();
  });
});
