import fastJsonPatch from 'fast-json-patch';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { KubeObject } from '@multicluster-runtime/core';
import { allowed, denied } from '../handlers/result.js';
import { withDefaulter, withHandler, withValidator } from '../handlers/webhooks.js';
import { KCP_CLUSTER_ANNOTATION, MILO_PARENT_NAME_EXTRA, MILO_PARENT_TYPE_EXTRA, clusterPath } from '../cluster/resolve.js';
import { certFiles, fixedClusters, review, send, type CertFiles } from './https.test-util.js';
import { WebhookServer } from './webhook-server.js';
import type { WebhookServerOptions } from './options.js';

type Response = {
  uid: string;
  allowed: boolean;
  status?: { code: number; message: string; reason?: string };
  patch?: string;
  warnings?: string[];
};

let certs: CertFiles;
beforeAll(async () => (certs = await certFiles()));
afterAll(() => certs.cleanup());

async function serve(options: Partial<WebhookServerOptions> = {}, members = ['alpha', 'beta']) {
  const registry = new Registry();
  const clusters = fixedClusters(...members);
  const server = new WebhookServer(clusters, {
    certFile: certs.certFile,
    keyFile: certs.keyFile,
    host: '127.0.0.1',
    port: 0,
    registry,
    ...options,
  });
  const stop = new AbortController();
  const running = server.start(stop.signal);
  expect(await server.waitForReady(AbortSignal.timeout(20_000))).toBe(true);
  const post = (path: string, body: unknown, extra: Parameters<typeof send>[2] extends infer O ? Partial<O> : never = {}) =>
    send(server.url + path, typeof body === 'string' ? body : JSON.stringify(body), { ca: certs.ca.certPem, ...extra });
  const admit = async (path: string, body: Record<string, unknown>): Promise<Response> => {
    const res = await post(path, body);
    expect(res.status, res.text).toBe(200);
    const out = res.json() as { apiVersion: string; kind: string; response: Response };
    expect(out.apiVersion).toBe('admission.k8s.io/v1');
    expect(out.kind).toBe('AdmissionReview');
    expect(out.response.uid).toBe((body['request'] as { uid: string }).uid);
    return out.response;
  };
  return {
    server,
    registry,
    clusters,
    post,
    admit,
    close: async () => {
      stop.abort();
      await running;
    },
  };
}

const widgetValidator = withValidator<KubeObject & { data?: Record<string, string> }>({
  validateCreate: (ctx, obj) =>
    obj.data?.['size'] === 'huge'
      ? denied(`size "huge" is not allowed in cluster ${ctx.clusterName}`)
      : allowed(obj.data?.['size'] ? [] : ['no size given']),
  validateUpdate: (_ctx, oldObj, newObj) =>
    oldObj.data?.['size'] !== newObj.data?.['size'] ? denied('size is immutable', { code: 422 }) : undefined,
  validateDelete: (_ctx, obj) => (obj.metadata.labels?.['protected'] ? denied('protected') : undefined),
});

describe('webhook server: handlers', () => {
  test('a validator answers per operation with its reason, code and warnings; the path names the member', async () => {
    const s = await serve();
    try {
      s.server.register('/validate', widgetValidator);
      const huge = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: { size: 'huge' } };
      const deniedA = await s.admit('/clusters/alpha/validate', review({ object: huge }));
      expect(deniedA).toMatchObject({ allowed: false, status: { code: 403, message: 'size "huge" is not allowed in cluster alpha' } });
      const deniedB = await s.admit('/clusters/beta/validate', review({ object: huge }));
      expect(deniedB.status?.message).toContain('cluster beta');
      const ok = await s.admit('/clusters/alpha/validate', review());
      expect(ok).toEqual({ uid: ok.uid, allowed: true, warnings: ['no size given'] });
      const small = { ...huge, data: { size: 'small' } };
      const update = await s.admit('/clusters/alpha/validate', review({ operation: 'UPDATE', oldObject: small, object: huge }));
      expect(update).toMatchObject({ allowed: false, status: { code: 422, message: 'size is immutable' } });
      const del = await s.admit(
        '/clusters/alpha/validate',
        review({ operation: 'DELETE', object: null, oldObject: { ...small, metadata: { name: 'cm', labels: { protected: 'yes' } } } }),
      );
      expect(del).toMatchObject({ allowed: false, status: { message: 'protected' } });
      // Without a cluster in the path the review is for the local cluster "", which this fleet does not have.
      const local = await s.admit('/validate', review());
      expect(local).toMatchObject({ allowed: false, status: { code: 403, message: 'cluster "" is not engaged with this webhook server' } });
    } finally {
      await s.close();
    }
  });

  test('a defaulter mutates a copy and the server answers the RFC 6902 patch that reproduces it', async () => {
    const s = await serve();
    try {
      s.server.register(
        '/default',
        withDefaulter<KubeObject & { data?: Record<string, string> }>({
          default: (ctx, obj) => {
            obj.data = { ...obj.data, size: obj.data?.['size'] ?? 'medium', 'cluster/name': ctx.clusterName };
            obj.metadata.labels = { ...obj.metadata.labels, defaulted: 'true' };
            delete obj.data['drop'];
          },
        }),
      );
      const object = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cm', namespace: 'default' },
        data: { drop: 'x', keep: 'y' },
      };
      const res = await s.admit('/clusters/beta/default', review({ object }));
      expect(res.allowed).toBe(true);
      expect(res).toMatchObject({ patchType: 'JSONPatch' });
      const patch = JSON.parse(Buffer.from(res.patch!, 'base64').toString('utf8')) as fastJsonPatch.Operation[];
      const patched = fastJsonPatch.applyPatch(structuredClone(object), patch).newDocument;
      expect(patched).toEqual({
        ...object,
        metadata: { ...object.metadata, labels: { defaulted: 'true' } },
        data: { keep: 'y', size: 'medium', 'cluster/name': 'beta' },
      });
      // Nothing to change: no patch at all. DELETE: allowed without calling the defaulter.
      const unchanged = await s.admit('/clusters/beta/default', review({ object: patched }));
      expect(unchanged).toEqual({ uid: unchanged.uid, allowed: true });
      const del = await s.admit('/clusters/beta/default', review({ operation: 'DELETE', object: null, oldObject: object }));
      expect(del).toEqual({ uid: del.uid, allowed: true });
    } finally {
      await s.close();
    }
  });

  test('a throwing or slow handler answers per failurePolicy, and the server keeps serving', async () => {
    const s = await serve({ timeoutMs: 300 });
    try {
      let aborted: unknown;
      const boom = () => {
        throw new Error('database unreachable');
      };
      s.server.register('/closed', withHandler(boom));
      s.server.register('/open', withHandler(boom, { failurePolicy: 'Ignore', name: 'open-hook' }));
      s.server.register(
        '/slow',
        withHandler(
          (ctx) =>
            new Promise((resolve) =>
              ctx.signal.addEventListener('abort', () => {
                aborted = ctx.signal.reason;
                resolve({ allowed: true });
              }),
            ),
        ),
      );
      s.server.register(
        '/garbage',
        withHandler(() => 'yes' as never),
      );
      const closed = await s.admit('/clusters/alpha/closed', review());
      expect(closed).toMatchObject({
        allowed: false,
        status: { code: 500, reason: 'InternalError', message: 'webhook "/closed" failed: database unreachable' },
      });
      const open = await s.admit('/clusters/alpha/open', review());
      expect(open).toMatchObject({
        allowed: true,
        warnings: ['admission webhook "open-hook" failed and was ignored: database unreachable'],
      });
      const slow = await s.admit('/clusters/alpha/slow', review());
      expect(slow).toMatchObject({
        allowed: false,
        status: { code: 500, message: 'webhook "/slow" failed: did not answer within 300 ms' },
      });
      expect(String(aborted)).toContain('did not answer within 300 ms');
      const garbage = await s.admit('/clusters/alpha/garbage', review());
      expect(garbage.status?.message).toContain('returned no AdmissionResult');
      const metrics = await s.registry.metrics();
      expect(metrics).toContain('mcr_webhook_errors_total{webhook="/closed",cluster="alpha",kind="error"} 1');
      expect(metrics).toContain('mcr_webhook_errors_total{webhook="/slow",cluster="alpha",kind="timeout"} 1');
      expect(metrics).toContain('mcr_webhook_requests_total{webhook="open-hook",cluster="alpha",result="error"} 1');
      expect((await s.post('/healthz', undefined, { method: 'GET' })).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  test("the API server's ?timeout= shortens the handler's deadline so the answer arrives in time", async () => {
    const s = await serve({ timeoutMs: 60_000 });
    try {
      s.server.register(
        '/slow',
        withHandler((ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve({ allowed: true })))),
      );
      const t0 = performance.now();
      const res = await s.admit('/clusters/alpha/slow?timeout=1s', review());
      expect(res.status?.message).toContain('did not answer within 900 ms');
      expect(performance.now() - t0).toBeLessThan(20_000);
    } finally {
      await s.close();
    }
  });
});

describe('webhook server: cluster resolution', () => {
  const echo = withHandler((ctx) => ({ allowed: false, code: 418, message: `cluster=${ctx.clusterName}` }));

  test('kcp annotation and Milo project resolve only when enabled; two sources that disagree are refused', async () => {
    const s = await serve({ clusterSources: ['path', 'kcp', 'milo'] }, ['', 'root:org:ws', 'proj-1', 'alpha']);
    const plain = await serve({}, ['', 'root:org:ws']);
    try {
      s.server.register('/echo', echo);
      plain.server.register('/echo', echo);
      const kcpObject = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cm', annotations: { [KCP_CLUSTER_ANNOTATION]: 'root:org:ws' } },
      };
      expect((await s.admit('/echo', review({ object: kcpObject }))).status?.message).toBe('cluster=root:org:ws');
      expect((await s.admit('/echo', review({ operation: 'DELETE', object: null, oldObject: kcpObject }))).status?.message).toBe(
        'cluster=root:org:ws',
      );
      const miloUser = { username: 'u', extra: { [MILO_PARENT_TYPE_EXTRA]: ['Project'], [MILO_PARENT_NAME_EXTRA]: ['proj-1'] } };
      expect((await s.admit('/echo', review({ userInfo: miloUser }))).status?.message).toBe('cluster=proj-1');
      const orgUser = { username: 'u', extra: { [MILO_PARENT_TYPE_EXTRA]: ['Organization'], [MILO_PARENT_NAME_EXTRA]: ['org'] } };
      expect((await s.admit('/echo', review({ userInfo: orgUser }))).status?.message).toBe('cluster=');
      const conflict = await s.admit('/clusters/alpha/echo', review({ object: kcpObject }));
      expect(conflict).toMatchObject({ allowed: false, status: { code: 403 } });
      expect(conflict.status?.message).toBe('the review names two clusters: "alpha" (path) and "root:org:ws" (kcp)');
      // Not enabled: a user-writable annotation is not trusted to pick the member.
      expect((await plain.admit('/echo', review({ object: kcpObject }))).status?.message).toBe('cluster=');
    } finally {
      await s.close();
      await plain.close();
    }
  });

  test('member names with slashes travel base64url-encoded; clusterName maps found names into the fleet', async () => {
    const s = await serve({ clusterName: (source, v) => (source === 'path' ? `kubeconfig#${v}` : v) }, ['kubeconfig#ns/name']);
    try {
      s.server.register('/echo', echo);
      expect(clusterPath('ns/name', '/echo')).toBe('/clusters/~bnMvbmFtZQ/echo');
      expect(clusterPath('root:org:ws', '/echo')).toBe('/clusters/root:org:ws/echo');
      expect((await s.admit(clusterPath('ns/name', '/echo'), review())).status?.message).toBe('cluster=kubeconfig#ns/name');
      // Percent-encoding is understood too (for clients that keep it).
      expect((await s.admit(`/clusters/${encodeURIComponent('ns/name')}/echo`, review())).status?.message).toBe(
        'cluster=kubeconfig#ns/name',
      );
    } finally {
      await s.close();
    }
  });

  test('unknownCluster "error" answers HTTP 404 so the member\'s failurePolicy decides', async () => {
    const s = await serve({ unknownCluster: 'error' });
    try {
      s.server.register('/echo', echo);
      const res = await s.post('/clusters/gamma/echo', review());
      expect(res.status).toBe(404);
      expect(res.json()).toEqual({ code: 404, error: 'cluster "gamma" is not engaged with this webhook server' });
      expect(await s.registry.metrics()).toContain('mcr_webhook_rejected_total{webhook="/echo",reason="unknown_cluster"} 1');
    } finally {
      await s.close();
    }
  });
});

describe('webhook server: bad input gets a clean HTTP answer', () => {
  test('malformed reviews, wrong apiVersion, oversized bodies, unknown paths, wrong methods and types', async () => {
    const s = await serve({ maxBodyBytes: 64 * 1024 });
    try {
      s.server.register('/validate', widgetValidator);
      const cases: [string, () => Promise<{ status: number; text: string }>, number, RegExp][] = [
        ['not JSON', () => s.post('/clusters/alpha/validate', '{"apiVersion":'), 400, /not JSON/],
        ['JSON array', () => s.post('/clusters/alpha/validate', '[]'), 400, /not a JSON object/],
        [
          'v1beta1',
          () => s.post('/clusters/alpha/validate', { ...review(), apiVersion: 'admission.k8s.io/v1beta1' }),
          400,
          /unsupported AdmissionReview apiVersion "admission.k8s.io\/v1beta1"/,
        ],
        [
          'no request',
          () => s.post('/clusters/alpha/validate', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }),
          400,
          /has no request/,
        ],
        ['no uid', () => s.post('/clusters/alpha/validate', review({ uid: '' })), 400, /uid is missing/],
        [
          'bad operation',
          () => s.post('/clusters/alpha/validate', review({ operation: 'PATCH' as never })),
          400,
          /operation must be one of/,
        ],
        [
          'bad extra',
          () => s.post('/clusters/alpha/validate', review({ userInfo: { extra: { k: 'v' as never } } })),
          400,
          /must be a list of strings/,
        ],
        ['oversized', () => s.post('/clusters/alpha/validate', 'x'.repeat(200 * 1024)), 413, /larger than the limit of 65536 bytes/],
        [
          'oversized chunked',
          () => s.post('/clusters/alpha/validate', 'x'.repeat(200 * 1024), { chunked: true }),
          413,
          /larger than the limit/,
        ],
        ['unknown path', () => s.post('/clusters/alpha/nope', review()), 404, /no webhook is served on \/nope/],
        ['bad cluster segment', () => s.post('/clusters/%E0%A4%A/validate', review()), 400, /not a valid cluster name encoding/],
        ['bad base64 segment', () => s.post('/clusters/~a!b/validate', review()), 400, /not a valid cluster name encoding/],
        ['GET', () => s.post('/clusters/alpha/validate', undefined, { method: 'GET' }), 405, /POSTed/],
        [
          'text/plain',
          () => s.post('/clusters/alpha/validate', review(), { headers: { 'Content-Type': 'text/plain' } }),
          415,
          /application\/json/,
        ],
      ];
      for (const [what, answer, status, message] of cases) {
        const res = await answer();
        expect(res.status, what).toBe(status);
        expect((JSON.parse(res.text) as { error: string }).error, what).toMatch(message);
      }
      const ok = await s.admit('/clusters/alpha/validate', review());
      expect(ok.allowed).toBe(true);
      expect(await s.registry.metrics()).toContain('mcr_webhook_rejected_total{webhook="/validate",reason="too_large"} 2');
    } finally {
      await s.close();
    }
  });

  test('TLS below 1.2 is refused; 1.2 and 1.3 are served', async () => {
    const s = await serve({});
    try {
      await expect(s.post('/healthz', undefined, { method: 'GET', maxVersion: 'TLSv1.1', minVersion: 'TLSv1' })).rejects.toThrow();
      expect((await s.post('/healthz', undefined, { method: 'GET', maxVersion: 'TLSv1.2' })).status).toBe(200);
      expect((await s.post('/readyz', undefined, { method: 'GET', minVersion: 'TLSv1.3' })).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  test('options are validated at construction', () => {
    const c = fixedClusters();
    expect(() => new WebhookServer(c, { certFile: '', keyFile: 'k' })).toThrow(/certFile is required/);
    expect(() => new WebhookServer(c, { certFile: 'c', keyFile: 'k', port: 70000 })).toThrow(/port must be/);
    expect(() => new WebhookServer(c, { certFile: 'c', keyFile: 'k', clusterSources: ['dns' as never] })).toThrow(/unknown source "dns"/);
    expect(() => new WebhookServer(c, { certFile: 'c', keyFile: 'k', tlsMinVersion: 'TLSv1.1' as never })).toThrow(/tlsMinVersion/);
    expect(() => new WebhookServer(c, { certFile: 'c', keyFile: 'k', timeoutMs: -1 })).toThrow(/timeoutMs must be a positive number/);
    const s = new WebhookServer(c, { certFile: 'c', keyFile: 'k' });
    expect(() => s.register('/healthz', widgetValidator)).toThrow(/reserved/);
    expect(() => s.register('/clusters/x', widgetValidator)).toThrow(/reserved/);
    expect(() => s.register('validate', widgetValidator)).toThrow(/must start with/);
    s.register('/v', widgetValidator);
    expect(() => s.register('/v', widgetValidator)).toThrow(/already registered/);
    expect(() => withHandler(widgetValidator.handle, { failurePolicy: 'Maybe' as never })).toThrow(/failurePolicy/);
  });

  test('a missing certificate fails start with a clear error', async () => {
    const s = new WebhookServer(fixedClusters(), { certFile: '/nonexistent/tls.crt', keyFile: certs.keyFile, port: 0 });
    await expect(s.start(new AbortController().signal)).rejects.toThrow(/cannot read the certificate \/nonexistent\/tls.crt: ENOENT/);
    const mismatched = new WebhookServer(fixedClusters(), { certFile: certs.caFile, keyFile: certs.keyFile, port: 0 });
    await expect(mismatched.start(new AbortController().signal)).rejects.toThrow(/do not form a usable TLS identity/);
  });
});
