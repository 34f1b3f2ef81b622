import { X509Certificate } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { issueServerCertificate } from '@multicluster-runtime/envtest';
import { withHandler } from '../handlers/webhooks.js';
import { certFiles, fixedClusters, review, send, type CertFiles } from './https.test-util.js';
import { WebhookServer } from './webhook-server.js';

let certs: CertFiles;
beforeEach(async () => (certs = await certFiles()));
afterEach(() => certs.cleanup());

function start(server: WebhookServer) {
  const stop = new AbortController();
  const running = server.start(stop.signal);
  return { stop, running };
}

/** The serial number of the certificate a fresh TLS connection is served. */
function servedSerial(url: string, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url + '/healthz', { ca, agent: false }, (res) => {
      const cert = (res.socket as TLSSocket).getPeerX509Certificate();
      res.resume();
      res.on('end', () => resolve(cert!.serialNumber));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('webhook server lifecycle', () => {
  test('stopping finishes the reviews in flight, then refuses connections and resolves', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => (entered = r));
    const server = new WebhookServer(fixedClusters('a'), { certFile: certs.certFile, keyFile: certs.keyFile, host: '127.0.0.1', port: 0 });
    server.register(
      '/slow',
      withHandler(async () => {
        entered();
        await gate;
        return { allowed: false, message: 'finished after stop' };
      }),
    );
    const { stop, running } = start(server);
    expect(await server.waitForReady(AbortSignal.timeout(20_000))).toBe(true);
    const url = server.url;
    const inFlight = send(`${url}/clusters/a/slow`, JSON.stringify(review()), { ca: certs.ca.certPem });
    await inHandler;
    stop.abort();
    let stopped = false;
    void running.then(() => (stopped = true));
    // New connections are refused while the review is still running; the server has not finished stopping.
    await expect(send(`${url}/healthz`, undefined, { ca: certs.ca.certPem, method: 'GET' })).rejects.toThrow(/ECONNREFUSED/);
    expect(stopped).toBe(false);
    release();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ response: { allowed: false, status: { message: 'finished after stop' } } });
    expect(res.headers['connection']).toBe('close');
    await running;
  });

  test('a review still running at the shutdown deadline is answered per failurePolicy, never dropped', async () => {
    const server = new WebhookServer(fixedClusters('a'), {
      certFile: certs.certFile,
      keyFile: certs.keyFile,
      host: '127.0.0.1',
      port: 0,
      shutdownTimeoutMs: 200,
    });
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => (entered = r));
    server.register(
      '/stuck',
      withHandler(
        (ctx) =>
          new Promise((resolve) => {
            entered();
            ctx.signal.addEventListener('abort', () => resolve({ allowed: true }));
          }),
      ),
    );
    const { stop, running } = start(server);
    await server.waitForReady(AbortSignal.timeout(20_000));
    const inFlight = send(`${server.url}/clusters/a/stuck`, JSON.stringify(review()), { ca: certs.ca.certPem });
    await inHandler;
    stop.abort();
    await running;
    const res = await inFlight;
    // failurePolicy Fail (the default): the cut-off review is denied with a clear reason.
    expect(res.json()).toMatchObject({
      response: {
        allowed: false,
        status: { code: 500, message: 'webhook "/stuck" failed: the webhook server stopped before the handler answered' },
      },
    });
  });

  test('certificate rotation under load: files replaced while reviews flow, no review fails', async () => {
    const server = new WebhookServer(fixedClusters('a'), { certFile: certs.certFile, keyFile: certs.keyFile, host: '127.0.0.1', port: 0 });
    server.register(
      '/ok',
      withHandler(() => ({ allowed: true })),
    );
    const { stop, running } = start(server);
    await server.waitForReady(AbortSignal.timeout(20_000));
    const url = server.url;
    const firstSerial = await servedSerial(url, certs.ca.certPem);
    const keepAlive = new Agent({ keepAlive: true, ca: certs.ca.certPem, maxSockets: 4 });
    let sent = 0;
    const failures: string[] = [];
    let flowing = true;
    // Four clients: two reuse keep-alive connections, two open a new TLS connection per review.
    const client = async (agent: Agent | undefined) => {
      while (flowing) {
        sent++;
        try {
          const res = await send(`${url}/clusters/a/ok`, JSON.stringify(review()), { ca: certs.ca.certPem, ...(agent ? { agent } : {}) });
          if (res.status !== 200 || (res.json()['response'] as { allowed: boolean }).allowed !== true)
            failures.push(`${res.status} ${res.text}`);
        } catch (err) {
          failures.push(String(err));
        }
      }
    };
    const clients = [client(keepAlive), client(keepAlive), client(undefined), client(undefined)];
    const waitSent = async (n: number) => {
      while (sent < n && failures.length === 0) await new Promise((r) => setImmediate(r));
    };
    await waitSent(20);
    // Rotation 1: renewal written in place, certificate first, key some reviews later (a torn pair on disk meanwhile).
    const renewed = await issueServerCertificate(certs.ca, { commonName: 'webhook-renewed' });
    await writeFile(certs.certFile, renewed.certPem);
    await waitSent(sent + 20);
    await writeFile(certs.keyFile, renewed.keyPem);
    const renewedSerial = new X509Certificate(renewed.certPem).serialNumber;
    while (server.certificateSerial !== renewedSerial) await new Promise((r) => setTimeout(r, 10));
    expect(await servedSerial(url, certs.ca.certPem)).toBe(renewedSerial);
    // Rotation 2: the way Secret volumes do it — new files, then an atomic rename over the old ones.
    const again = await issueServerCertificate(certs.ca, { commonName: 'webhook-again' });
    await writeFile(`${certs.dir}/tls.key.new`, again.keyPem);
    await writeFile(`${certs.dir}/tls.crt.new`, again.certPem);
    await rename(`${certs.dir}/tls.key.new`, certs.keyFile);
    await waitSent(sent + 10);
    await rename(`${certs.dir}/tls.crt.new`, certs.certFile);
    const againSerial = new X509Certificate(again.certPem).serialNumber;
    while (server.certificateSerial !== againSerial) await new Promise((r) => setTimeout(r, 10));
    await waitSent(sent + 20);
    flowing = false;
    await Promise.all(clients);
    keepAlive.destroy();
    expect(failures).toEqual([]);
    expect(firstSerial).not.toBe(renewedSerial);
    expect(await servedSerial(url, certs.ca.certPem)).toBe(againSerial);
    stop.abort();
    await running;
  });
});
