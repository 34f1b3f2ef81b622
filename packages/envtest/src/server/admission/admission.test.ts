import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { KubeHttpClient } from '../../conformance/http-client.js';
import { startApiServer } from '../../api-server.js';
import { createCertificateAuthority, issueServerCertificate } from '../../tls/certificate-authority.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

interface Review {
  request: {
    uid: string;
    operation: string;
    name: string;
    namespace?: string;
    subResource?: string;
    object: Record<string, any> | null;
    oldObject: Record<string, any> | null;
    userInfo: { username: string };
    dryRun: boolean;
    options: Record<string, unknown>;
  };
}
type Answer =
  { allowed: boolean; status?: Record<string, unknown>; patch?: unknown[]; warnings?: string[] } | { raw: string; code?: number } | 'hang';

/** A plain HTTPS webhook that records reviews and answers what `decide` says. */
async function webhookServer(decide: (path: string, r: Review) => Answer) {
  const ca = await createCertificateAuthority();
  const pair = await issueServerCertificate(ca);
  const reviews: { path: string; review: Review; query: string }[] = [];
  const server: Server = createServer({ cert: pair.certPem, key: pair.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url!, 'https://x');
      const review = JSON.parse(Buffer.concat(chunks).toString()) as Review;
      reviews.push({ path: url.pathname, review, query: url.search });
      const a = decide(url.pathname, review);
      if (a === 'hang') return;
      if ('raw' in a) {
        res.writeHead(a.code ?? 200, { 'Content-Type': 'application/json' });
        return res.end(a.raw);
      }
      const response: Record<string, unknown> = { uid: review.request.uid, allowed: a.allowed };
      if (a.status) response['status'] = a.status;
      if (a.warnings) response['warnings'] = a.warnings;
      if (a.patch) {
        response['patch'] = Buffer.from(JSON.stringify(a.patch)).toString('base64');
        response['patchType'] = 'JSONPatch';
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });
  const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const caBundle = Buffer.from(ca.certPem).toString('base64');
  return { reviews, base, caBundle };
}

async function apiServer() {
  const server = await startApiServer();
  const client = new KubeHttpClient(server.kubeconfig());
  cleanups.push(
    () => server.close(),
    () => client.close(),
  );
  return client;
}

const rules = (resources = ['configmaps'], operations = ['CREATE', 'UPDATE', 'DELETE']) => [
  { operations, apiGroups: [''], apiVersions: ['v1'], resources },
];

function webhook(name: string, url: string, caBundle: string, extra: Record<string, unknown> = {}) {
  return { name, clientConfig: { url, caBundle }, rules: rules(), sideEffects: 'None', admissionReviewVersions: ['v1'], ...extra };
}

const cm = (name: string, data: Record<string, string> = {}, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(labels ? { labels } : {}) },
  data,
});

describe('in-memory server: admission webhooks', () => {
  test('configurations are served with kube-apiserver defaults; a broken one is refused with field errors', async () => {
    const client = await apiServer();
    const created = await client.post('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      metadata: { name: 'v' },
      webhooks: [webhook('v.example.com', 'https://127.0.0.1:1/v', '')],
    });
    expect(created.status).toBe(201);
    expect(created.body.webhooks[0]).toMatchObject({
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
      timeoutSeconds: 10,
      rules: [{ scope: '*' }],
    });
    const bad = await client.post('/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
      metadata: { name: 'm' },
      webhooks: [{ name: 'short', clientConfig: { url: 'http://x/y' }, rules: rules(), timeoutSeconds: 31 }],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toContain('webhooks[0].name: Invalid value: "short"');
    expect(bad.body.message).toContain(
      'webhooks[0].clientConfig.url: Invalid value: "http://x/y": \'https\' is the only allowed URL scheme',
    );
    expect(bad.body.message).toContain('webhooks[0].sideEffects: Required value');
    expect(bad.body.message).toContain('webhooks[0].admissionReviewVersions: Required value');
    expect(bad.body.message).toContain('webhooks[0].timeoutSeconds: Invalid value: 31');
    const groups = await client.get('/apis/admissionregistration.k8s.io/v1');
    expect(groups.body.resources.map((r: { name: string }) => r.name)).toEqual(
      expect.arrayContaining(['validatingwebhookconfigurations', 'mutatingwebhookconfigurations']),
    );
  });

  test('mutating runs first (in order, each seeing the last patch), then validation, then validating webhooks', async () => {
    const client = await apiServer();
    const hook = await webhookServer((path, r) => {
      const obj = r.request.object;
      if (path.startsWith('/m') && !obj) return { allowed: true }; // DELETE: nothing to patch (a patch would be an error)
      if (path === '/m1')
        return { allowed: true, patch: [{ op: 'add', path: '/data/size', value: 'medium' }], warnings: ['defaulted size'] };
      if (path === '/m2') return { allowed: true, patch: [{ op: 'add', path: '/data/seen', value: String(obj?.data?.size) }] };
      if (obj?.data?.forbidden) return { allowed: false, status: { message: 'forbidden key', code: 403 } };
      return { allowed: true };
    });
    const ok = (s: number) => expect([200, 201]).toContain(s);
    ok(
      (
        await client.post('/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
          metadata: { name: 'a-first' },
          webhooks: [
            webhook('m1.example.com', `${hook.base}/m1`, hook.caBundle),
            webhook('m2.example.com', `${hook.base}/m2`, hook.caBundle),
          ],
        })
      ).status,
    );
    ok(
      (
        await client.post('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
          metadata: { name: 'v' },
          webhooks: [webhook('v.example.com', `${hook.base}/v`, hook.caBundle)],
        })
      ).status,
    );
    const created = await client.post('/api/v1/namespaces/default/configmaps', cm('one', { a: '1' }));
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ a: '1', size: 'medium', seen: 'medium' });
    expect(created.headers['warning']).toBe('299 - "defaulted size"');
    const v = hook.reviews.find((r) => r.path === '/v')!;
    // The validating webhook sees the stored object: defaults, uid and creationTimestamp set, the mutations applied.
    expect(v.review.request.object).toMatchObject({ metadata: { name: 'one', uid: created.body.metadata.uid }, data: { seen: 'medium' } });
    expect(v.review.request).toMatchObject({
      operation: 'CREATE',
      namespace: 'default',
      name: 'one',
      dryRun: false,
      options: { kind: 'CreateOptions' },
    });
    expect(v.query).toBe('?timeout=10s');
    expect(hook.reviews.map((r) => r.path)).toEqual(['/m1', '/m2', '/v']);

    const denied = await client.post('/api/v1/namespaces/default/configmaps', cm('two', { forbidden: 'x' }));
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({
      reason: 'Forbidden',
      message: 'configmaps "two" is forbidden: admission webhook "v.example.com" denied the request: forbidden key',
      details: { name: 'two', group: '', kind: 'configmaps' },
    });
    expect((await client.get('/api/v1/namespaces/default/configmaps/two')).status).toBe(404);

    // UPDATE (PUT) and PATCH: webhooks see the new object and the old one.
    const put = await client.put('/api/v1/namespaces/default/configmaps/one', { ...created.body, data: { a: '2' } });
    expect(put.status).toBe(200);
    expect(put.body.data).toEqual({ a: '2', size: 'medium', seen: 'medium' });
    const upd = hook.reviews.filter((r) => r.path === '/v').at(-1)!.review.request;
    expect(upd).toMatchObject({
      operation: 'UPDATE',
      oldObject: { data: { a: '1' } },
      object: { data: { a: '2' } },
      options: { kind: 'UpdateOptions' },
    });
    const patched = await client.request('PATCH', '/api/v1/namespaces/default/configmaps/one', {
      body: { data: { forbidden: 'y' } },
      contentType: 'application/merge-patch+json',
    });
    expect(patched.status).toBe(403);
    expect((await client.get('/api/v1/namespaces/default/configmaps/one')).body.data.forbidden).toBeUndefined();

    // DELETE: oldObject is the stored object, object is null.
    expect((await client.delete('/api/v1/namespaces/default/configmaps/one')).status).toBe(200);
    const del = hook.reviews.filter((r) => r.path === '/v').at(-1)!.review.request;
    expect(del).toMatchObject({
      operation: 'DELETE',
      object: null,
      oldObject: { metadata: { name: 'one' } },
      options: { kind: 'DeleteOptions' },
    });
  });

  test('failurePolicy decides on unreachable, slow and broken webhooks; timeouts and bad answers are reported', async () => {
    const client = await apiServer();
    const hook = await webhookServer((path, r) => {
      if (path === '/hang') return 'hang';
      if (path === '/uid')
        return {
          raw: JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'nope', allowed: true } }),
        };
      if (path === '/500') return { raw: 'boom', code: 500 };
      return { allowed: true, status: { message: r.request.uid } };
    });
    const make = (name: string, path: string, extra: Record<string, unknown>) =>
      client.post('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
        metadata: { name },
        webhooks: [{ ...webhook(`${name}.example.com`, `${hook.base}${path}`, hook.caBundle), ...extra }],
      });
    expect((await make('hang', '/hang', { timeoutSeconds: 1, objectSelector: { matchLabels: { case: 'hang' } } })).status).toBe(201);
    expect((await make('uid', '/uid', { objectSelector: { matchLabels: { case: 'uid' } } })).status).toBe(201);
    expect((await make('down', '/500', { objectSelector: { matchLabels: { case: 'down' } }, failurePolicy: 'Ignore' })).status).toBe(201);
    const hang = await client.post('/api/v1/namespaces/default/configmaps', cm('h', {}, { case: 'hang' }));
    expect(hang.status).toBe(500);
    expect(hang.body.message).toMatch(
      /^Internal error occurred: failed calling webhook "hang.example.com": failed to call webhook: Post ".*\/hang\?timeout=1s": context deadline exceeded$/,
    );
    const uid = await client.post('/api/v1/namespaces/default/configmaps', cm('u', {}, { case: 'uid' }));
    expect(uid.body.message).toContain('received invalid webhook response: expected response.uid=');
    const ignored = await client.post('/api/v1/namespaces/default/configmaps', cm('d', {}, { case: 'down' }));
    expect(ignored.status).toBe(201);
    // objectSelector kept every other write away from these webhooks.
    expect(hook.reviews.length).toBe(3);
  });

  test('rules, scope and namespaceSelector pick the webhooks; dry runs reach them with dryRun set and store nothing', async () => {
    const client = await apiServer();
    const hook = await webhookServer(() => ({ allowed: false, status: { message: 'no' } }));
    await client.post('/api/v1/namespaces', { metadata: { name: 'guarded', labels: { guard: 'on' } } });
    await client.post('/api/v1/namespaces', { metadata: { name: 'open' } });
    expect(
      (
        await client.post('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
          metadata: { name: 'ns' },
          webhooks: [
            {
              ...webhook('guard.example.com', `${hook.base}/guard`, hook.caBundle),
              rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: 'Namespaced' }],
              namespaceSelector: { matchExpressions: [{ key: 'guard', operator: 'In', values: ['on'] }] },
            },
          ],
        })
      ).status,
    ).toBe(201);
    expect((await client.post('/api/v1/namespaces/open/configmaps', cm('a'))).status).toBe(201);
    expect((await client.post('/api/v1/namespaces/guarded/configmaps', cm('a'))).status).toBe(403);
    expect((await client.post('/api/v1/namespaces/guarded/secrets', { metadata: { name: 's' } })).status).toBe(201);
    const dry = await client.request('POST', '/api/v1/namespaces/guarded/configmaps', { body: cm('b'), query: { dryRun: 'All' } });
    expect(dry.status).toBe(403);
    expect(hook.reviews.at(-1)!.review.request).toMatchObject({ dryRun: true, options: { dryRun: ['All'] } });
    expect(hook.reviews.length).toBe(2);
    // The configuration itself is never sent to webhooks: it can always be removed.
    expect((await client.delete('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/ns')).status).toBe(200);
    expect((await client.post('/api/v1/namespaces/guarded/configmaps', cm('a'))).status).toBe(201);
  });
});
