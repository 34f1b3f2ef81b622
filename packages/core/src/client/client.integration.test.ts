/**
 * The API client, REST mapper and transport against the in-memory API server over HTTPS: every verb round-trips,
 * typed errors for 404/409/422/410, paging and selectors, CRDs with a status subresource found by discovery after
 * they appear, watches, and connection reuse.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { createCertificateAuthority, issueClientCertificate, startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../object/types.js';
import { ApiClient, type ClientTransport } from './client.js';
import {
  ApiError,
  ignoreAlreadyExists,
  ignoreNotFound,
  isAlreadyExists,
  isConflict,
  isGone,
  isInvalid,
  isNoMatchError,
  isNotFound,
} from './errors.js';
import { DiscoveryRESTMapper } from './rest-mapper.js';
import { Transport, type WatchEvent } from './transport.js';

const cm = { apiVersion: 'v1', kind: 'ConfigMap' };
const widgetKind = { apiVersion: 'example.com/v1', kind: 'Widget' };

let server: ApiServer;
let transport: Transport;
let client: ApiClient;
let ns: string;
let nsCount = 0;

function configFor(s: ApiServer, opts?: Parameters<ApiServer['kubeconfig']>[0]): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(s.kubeconfig(opts));
  return kc;
}

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

beforeAll(async () => {
  server = await startApiServer();
  transport = Transport.forConfig(configFor(server));
  client = new ApiClient(transport, new DiscoveryRESTMapper(transport), { pageSize: 2 });
});

afterAll(async () => {
  await transport?.close();
  await server?.close();
});

/** A fresh namespace per test keeps tests independent on the shared server. */
async function freshNamespace(): Promise<string> {
  ns = `t${++nsCount}`;
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  return ns;
}

describe('ApiClient verbs', () => {
  it('create, get, update, updateStatus-less kinds, patch (merge, json, strategic), apply and delete round-trip', async () => {
    await freshNamespace();
    const created = await client.create<ConfigMap>({ ...cm, metadata: { name: 'a', namespace: ns }, data: { x: '1' } });
    expect(created).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { x: '1' } });
    expect(created.metadata.uid).toBeTruthy();

    const got = await client.get<ConfigMap>(cm, { namespace: ns, name: 'a' });
    expect(got).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: ns } });

    const updated = await client.update<ConfigMap>({ ...got, data: { x: '2' } });
    expect(updated.data).toEqual({ x: '2' });
    expect(updated.metadata.resourceVersion).not.toBe(got.metadata.resourceVersion);

    const merged = await client.patch<ConfigMap>(cm, { namespace: ns, name: 'a' }, { type: 'merge', body: { data: { y: 'm' } } });
    expect(merged.data).toEqual({ x: '2', y: 'm' });
    const jsonPatched = await client.patch<ConfigMap>(
      cm,
      { namespace: ns, name: 'a' },
      {
        type: 'json',
        body: [{ op: 'remove', path: '/data/y' }],
      },
    );
    expect(jsonPatched.data).toEqual({ x: '2' });
    const strategic = await client.patch<ConfigMap>(
      cm,
      { namespace: ns, name: 'a' },
      {
        type: 'strategic',
        body: { metadata: { labels: { s: 'yes' } } },
      },
    );
    expect(strategic.metadata.labels).toEqual({ s: 'yes' });

    const applied = await client.apply<ConfigMap>(
      { ...cm, metadata: { name: 'b', namespace: ns }, data: { owned: 'by-me' } },
      { fieldManager: 'tester' },
    );
    expect(applied).toMatchObject({ kind: 'ConfigMap', data: { owned: 'by-me' } });
    const reapplied = await client.apply<ConfigMap>(
      { ...cm, metadata: { name: 'b', namespace: ns }, data: { owned: 'changed' } },
      { fieldManager: 'tester' },
    );
    expect(reapplied.data).toEqual({ owned: 'changed' });

    await client.delete(cm, { namespace: ns, name: 'a' });
    await expect(client.get(cm, { namespace: ns, name: 'a' })).rejects.toSatisfy(isNotFound);
  });

  it('dry-run create stores nothing', async () => {
    await freshNamespace();
    const dry = await client.create<ConfigMap>({ ...cm, metadata: { name: 'dry', namespace: ns } }, { dryRun: true });
    expect(dry.metadata.name).toBe('dry');
    await expect(client.get(cm, { namespace: ns, name: 'dry' })).rejects.toSatisfy(isNotFound);
  });

  it('lists every page joined, or one page with limit, with items carrying apiVersion and kind', async () => {
    await freshNamespace();
    for (let i = 0; i < 7; i++) {
      await client.create({ ...cm, metadata: { name: `c${i}`, namespace: ns, labels: { parity: i % 2 ? 'odd' : 'even' } } });
    }
    const all = await client.list<ConfigMap>(cm, { namespace: ns });
    expect(all.items.map((i) => i.metadata.name).sort()).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
    expect(all.items.every((i) => i.apiVersion === 'v1' && i.kind === 'ConfigMap')).toBe(true);
    expect(all.metadata.resourceVersion).toBeTruthy();
    expect(all.metadata.continue).toBeUndefined();

    const first = await client.list(cm, { namespace: ns, limit: 3 });
    expect(first.items).toHaveLength(3);
    expect(first.metadata.continue).toBeTruthy();
    const second = await client.list(cm, { namespace: ns, limit: 3, continue: first.metadata.continue });
    expect(second.items.map((i) => i.metadata.name)).not.toContain(first.items[0]!.metadata.name);

    const odd = await client.list(cm, { namespace: ns, labelSelector: { parity: 'odd' } });
    expect(odd.items.map((i) => i.metadata.name).sort()).toEqual(['c1', 'c3', 'c5']);
    const even = await client.list(cm, { namespace: ns, labelSelector: 'parity!=odd' });
    expect(even.items).toHaveLength(4);
    const byName = await client.list(cm, { namespace: ns, fieldSelector: { 'metadata.name': 'c4' } });
    expect(byName.items.map((i) => i.metadata.name)).toEqual(['c4']);
  });

  it('deletes with preconditions and propagation, and resolves when finalizers keep the object', async () => {
    await freshNamespace();
    const obj = await client.create<ConfigMap>({ ...cm, metadata: { name: 'f', namespace: ns, finalizers: ['example.com/keep'] } });
    const stale = await client.delete(cm, { namespace: ns, name: 'f' }, { preconditions: { uid: 'not-the-uid' } }).catch((e: unknown) => e);
    expect(isConflict(stale)).toBe(true);
    await client.delete(cm, { namespace: ns, name: 'f' }, { propagationPolicy: 'Foreground', preconditions: { uid: obj.metadata.uid } });
    const terminating = await client.get(cm, { namespace: ns, name: 'f' });
    expect(terminating.metadata.deletionTimestamp).toBeTruthy();
    await client.patch(cm, { namespace: ns, name: 'f' }, { type: 'merge', body: { metadata: { finalizers: null } } });
    await expect
      .poll(() =>
        client.get(cm, { namespace: ns, name: 'f' }).then(
          () => 'present',
          (e: unknown) => (isNotFound(e) ? 'gone' : 'error'),
        ),
      )
      .toBe('gone');
  });
});

describe('bad input', () => {
  it('is refused before anything is sent, with an error saying what is wrong', async () => {
    const before = server.stats().requests;
    await client.get(cm, { namespace: 'default', name: 'warm-up' }).catch(() => undefined);
    const sent = server.stats().requests;
    await expect(client.get(cm, { name: 'x' })).rejects.toThrow(/namespaced, so a namespace is required/);
    await expect(client.get(cm, { namespace: 'default', name: '' })).rejects.toThrow(/needs a name/);
    await expect(client.create({ metadata: { name: 'x' } })).rejects.toThrow(/no apiVersion\/kind/);
    await expect(client.update({ ...cm, metadata: { namespace: 'default' } })).rejects.toThrow(/no metadata.name/);
    await expect(client.apply({ ...cm, metadata: { name: 'x', namespace: 'default' } }, { fieldManager: '' })).rejects.toThrow(
      /needs a fieldManager/,
    );
    await expect(client.patch(cm, { namespace: 'default', name: 'x' }, { type: 'merge', body: {} }, { force: true })).rejects.toThrow(
      /only allowed for server-side apply/,
    );
    await expect(client.patch(cm, { namespace: 'default', name: 'x' }, { type: 'yaml' as never, body: {} })).rejects.toThrow(
      /unknown patch type/,
    );
    expect(server.stats().requests).toBe(sent);
    expect(sent).toBeGreaterThan(before);
  });
});

describe('typed errors', () => {
  it('404 NotFound, 409 AlreadyExists, 409 Conflict on a stale resourceVersion, 422 Invalid', async () => {
    await freshNamespace();
    const missing = await client.get(cm, { namespace: ns, name: 'nope' }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing).toMatchObject({ code: 404, reason: 'NotFound', retryable: false });

    const first = await client.create<ConfigMap>({ ...cm, metadata: { name: 'dup', namespace: ns } });
    const dup = await client.create({ ...cm, metadata: { name: 'dup', namespace: ns } }).catch((e: unknown) => e);
    expect(isAlreadyExists(dup)).toBe(true);
    expect(isConflict(dup)).toBe(false);

    await client.update({ ...first, data: { v: '1' } });
    const stale = await client.update({ ...first, data: { v: 'stale' } }).catch((e: unknown) => e);
    expect(isConflict(stale)).toBe(true);
    expect((stale as ApiError).status.message).toContain('the object has been modified');

    const invalid = await client.create({ ...cm, metadata: { name: 'Not_A_Name', namespace: ns } }).catch((e: unknown) => e);
    expect(isInvalid(invalid)).toBe(true);
    expect((invalid as ApiError).code).toBe(422);
  });

  it('ignoreNotFound and ignoreAlreadyExists as .catch handlers: absence is undefined, every other error still throws', async () => {
    await freshNamespace();
    expect(await client.get<ConfigMap>(cm, { namespace: ns, name: 'nope' }).catch(ignoreNotFound)).toBeUndefined();
    await expect(client.delete(cm, { namespace: ns, name: 'nope' }).catch(ignoreNotFound)).resolves.toBeUndefined();
    const made = await client.create<ConfigMap>({ ...cm, metadata: { name: 'here', namespace: ns } });
    expect((await client.get<ConfigMap>(cm, { namespace: ns, name: 'here' }).catch(ignoreNotFound))?.metadata.uid).toBe(made.metadata.uid);
    expect(await client.create({ ...cm, metadata: { name: 'here', namespace: ns } }).catch(ignoreAlreadyExists)).toBeUndefined();
    await expect(
      client.update({ ...made, data: { a: 'b' }, metadata: { ...made.metadata, resourceVersion: '1' } }).catch(ignoreNotFound),
    ).rejects.toSatisfy(isConflict);
    // A kind the server does not serve is not "the object is absent": ignoreNotFound lets it through.
    const noKind = await client
      .get(widgetKind, { namespace: ns, name: 'x' })
      .catch(ignoreNotFound)
      .catch((e: unknown) => e);
    expect(isNoMatchError(noKind)).toBe(true);
    expect(isNotFound(noKind)).toBe(false);
  });

  it('410 Gone on a watch from a compacted resourceVersion and for an injected watch failure', async () => {
    await freshNamespace();
    const obj = await client.create<ConfigMap>({ ...cm, metadata: { name: 'old', namespace: ns } });
    await client.update({ ...obj, data: { a: 'b' } });
    server.compact();
    const ac = new AbortController();
    // As kube-apiserver does: the watch is accepted, then a single ERROR event carries the 410.
    const events = await collectUntilEnd(
      await transport.watch({
        path: `/api/v1/namespaces/${ns}/configmaps`,
        query: { resourceVersion: obj.metadata.resourceVersion },
        signal: ac.signal,
      }),
    );
    expect(events).toEqual([expect.objectContaining({ type: 'ERROR', object: expect.objectContaining({ code: 410, reason: 'Expired' }) })]);

    server.faults.failNextWatch(410);
    const injected = await collectUntilEnd(await transport.watch({ path: `/api/v1/namespaces/${ns}/configmaps`, signal: ac.signal }));
    expect(injected).toEqual([
      expect.objectContaining({ type: 'ERROR', object: expect.objectContaining({ code: 410, reason: 'Expired' }) }),
    ]);
    ac.abort();
  });

  it('410 Expired ApiError for a list continue token older than a compaction', async () => {
    await freshNamespace();
    for (let i = 0; i < 3; i++) await client.create({ ...cm, metadata: { name: `p${i}`, namespace: ns } });
    const page = await client.list(cm, { namespace: ns, limit: 1 });
    await client.create({ ...cm, metadata: { name: 'p3', namespace: ns } });
    server.compact();
    const expired = await client.list(cm, { namespace: ns, limit: 1, continue: page.metadata.continue }).catch((e: unknown) => e);
    expect(isGone(expired)).toBe(true);
    expect(expired).toMatchObject({ code: 410, reason: 'Expired' });
  });

  it('falls back to one full list when a continue token expires between pages', async () => {
    await freshNamespace();
    for (let i = 0; i < 5; i++) await client.create({ ...cm, metadata: { name: `q${i}`, namespace: ns } });
    const sent: string[] = [];
    // The real transport, with a write and a compaction after the first page so its continue token expires.
    const compacting: ClientTransport = {
      request: async <T>(req: Parameters<Transport['request']>[0]) => {
        if (req.method === 'GET') sent.push(req.query?.['continue'] ? 'continue' : req.query?.['limit'] ? 'first page' : 'full list');
        const answer = await transport.request<T>(req);
        if (sent.length === 1) {
          await client.create({ ...cm, metadata: { name: 'q5', namespace: ns } });
          server.compact();
        }
        return answer;
      },
    };
    const paging = new ApiClient(compacting, new DiscoveryRESTMapper(transport), { pageSize: 2 });
    const all = await paging.list(cm, { namespace: ns });
    expect(all.items.map((i) => i.metadata.name).sort()).toEqual(['q0', 'q1', 'q2', 'q3', 'q4', 'q5']);
    expect(sent).toEqual(['first page', 'continue', 'full list']);
  });
});

describe('CRDs through discovery', () => {
  it('finds a kind once its CRD is established, and updates its status subresource', async () => {
    await freshNamespace();
    const mapper = new DiscoveryRESTMapper(transport);
    const crdClient = new ApiClient(transport, mapper);
    await expect(mapper.mapping(widgetKind)).rejects.toSatisfy(isNoMatchError);
    await crdClient.create({
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
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    });
    await expect
      .poll(
        () =>
          mapper.mapping(widgetKind).then(
            (m) => m.hasStatus,
            () => false,
          ),
        { timeout: 10_000 },
      )
      .toBe(true);

    const w = await crdClient.create({ ...widgetKind, metadata: { name: 'w', namespace: ns }, spec: { size: 1 } });
    const withStatus = await crdClient.updateStatus({ ...w, status: { ready: true } });
    expect(withStatus['status']).toEqual({ ready: true });
    const patched = await crdClient.patch(
      widgetKind,
      { namespace: ns, name: 'w' },
      { type: 'merge', body: { status: { ready: false } } },
      { subresource: 'status' },
    );
    expect(patched['status']).toEqual({ ready: false });
    // A main-resource update does not touch status when the subresource is enabled.
    const main = await crdClient.update({ ...patched, spec: { size: 2 }, status: { ready: true } });
    expect(main['status']).toEqual({ ready: false });
    const strategic = await crdClient
      .patch(widgetKind, { namespace: ns, name: 'w' }, { type: 'strategic', body: {} })
      .catch((e: unknown) => e);
    expect(strategic).toMatchObject({ code: 415, reason: 'UnsupportedMediaType' });
  });
});

describe('watch', () => {
  it('sees ADDED, MODIFIED and DELETED, and ends on abort without leaving a watch open', async () => {
    await freshNamespace();
    const ac = new AbortController();
    const list = await client.list(cm, { namespace: ns });
    const stream = await transport.watch({
      path: `/api/v1/namespaces/${ns}/configmaps`,
      query: { resourceVersion: list.metadata.resourceVersion, allowWatchBookmarks: true },
      signal: ac.signal,
    });
    await expect.poll(() => server.stats().openWatches).toBeGreaterThan(0);
    const seen: string[] = [];
    const done = (async () => {
      for await (const e of stream) {
        if (e.type === 'BOOKMARK') continue;
        seen.push(`${e.type} ${(e.object as KubeObject).metadata.name}`);
        if (seen.length === 3) ac.abort();
      }
    })();
    const obj = await client.create({ ...cm, metadata: { name: 'w1', namespace: ns } });
    await client.update({ ...obj, data: { a: '1' } });
    await client.delete(cm, { namespace: ns, name: 'w1' });
    await done;
    expect(seen).toEqual(['ADDED w1', 'MODIFIED w1', 'DELETED w1']);
    await expect.poll(() => server.stats().openWatches).toBe(0);
  });

  it('throws a TransportError when the server drops the watch mid-stream', async () => {
    await freshNamespace();
    const ac = new AbortController();
    const stream = await transport.watch({ path: `/api/v1/namespaces/${ns}/configmaps`, signal: ac.signal });
    await expect.poll(() => server.stats().openWatches).toBeGreaterThan(0);
    const ended = collectUntilEnd(stream).then(
      () => 'ended cleanly',
      (e: unknown) => e,
    );
    server.faults.dropWatches();
    expect(await ended).toMatchObject({ name: 'TransportError', retryable: true });
    ac.abort();
  });
});

describe('connections and credentials', () => {
  afterEach(() => server.faults.setLatency(0));

  it('2,000 requests with concurrency 20 reuse a handful of connections', async () => {
    const s = await startApiServer();
    const t = Transport.forConfig(configFor(s), { maxConnections: 4 });
    try {
      const before = s.stats().connections;
      let next = 0;
      const worker = async () => {
        while (next < 2000) {
          next++;
          await t.request({ method: 'GET', path: '/api/v1/namespaces/default' });
        }
      };
      await Promise.all(Array.from({ length: 20 }, worker));
      expect(s.stats().connections - before).toBeLessThanOrEqual(4);
      expect(s.stats().requests).toBeGreaterThanOrEqual(2000);
    } finally {
      await t.close();
      await s.close();
    }
  });

  it('a token user works and a bad token gives ApiError Unauthorized', async () => {
    server.addToken('good-token', { username: 'alice', groups: ['system:masters'] });
    const good = Transport.forConfig(configFor(server, { user: { token: 'good-token' } }));
    const bad = Transport.forConfig(configFor(server, { user: { token: 'wrong-token' } }));
    try {
      await expect(good.request({ method: 'GET', path: '/api/v1/namespaces/default' })).resolves.toMatchObject({ kind: 'Namespace' });
      const err = await bad.request({ method: 'GET', path: '/api/v1/namespaces/default' }).catch((e: unknown) => e);
      expect(err).toMatchObject({ name: 'ApiError', code: 401, reason: 'Unauthorized' });
      expect((err as Error).message).not.toContain('wrong-token');
    } finally {
      await good.close();
      await bad.close();
    }
  });

  it('verifies the server certificate: no CA fails with a TLS TransportError unless the kubeconfig skips verification', async () => {
    const base = configFor(server);
    const cluster = base.getCurrentCluster()!;
    const user = base.getCurrentUser()!;
    const noCa = new KubeConfig();
    noCa.loadFromClusterAndUser({ name: 'x', server: cluster.server, skipTLSVerify: false }, user);
    const skip = new KubeConfig();
    skip.loadFromClusterAndUser({ name: 'x', server: cluster.server, skipTLSVerify: true }, user);
    const strict = Transport.forConfig(noCa);
    const insecure = Transport.forConfig(skip);
    try {
      await expect(strict.request({ method: 'GET', path: '/api' })).rejects.toMatchObject({ name: 'TransportError', kind: 'tls' });
      await expect(insecure.request({ method: 'GET', path: '/api' })).resolves.toMatchObject({ kind: 'APIVersions' });
    } finally {
      await strict.close();
      await insecure.close();
    }
  });
});

async function collectUntilEnd(stream: AsyncIterable<WatchEvent>): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

describe('exec plugin credentials against the API server', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'exec-it-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A kubeconfig for `server` whose user is the given plugin script. */
  async function execConfig(script: string): Promise<KubeConfig> {
    const path = join(dir, 'plugin.sh');
    await writeFile(path, script, { mode: 0o755 });
    const base = configFor(server);
    const kc = new KubeConfig();
    kc.loadFromClusterAndUser(base.getCurrentCluster()!, {
      name: 'exec-user',
      exec: { apiVersion: 'client.authentication.k8s.io/v1', command: path, args: [dir] },
    });
    return kc;
  }

  const runs = async () => (await readFile(join(dir, 'runs'), 'utf8').catch(() => '')).split('\n').filter(Boolean).length;

  it('a rejected token is refreshed once for 50 concurrent requests', async () => {
    server.addToken('exec-tok-2', { username: 'exec-user', groups: ['system:masters'] });
    const kc = await execConfig(`#!/bin/sh
echo run >> "$1/runs"
n=$(wc -l < "$1/runs" | tr -d ' ')
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"exec-tok-%s"}}' "$n"
`);
    const t = Transport.forConfig(kc);
    try {
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => t.request<KubeObject>({ method: 'GET', path: '/api/v1/namespaces/default' })),
      );
      expect(answers.every((a) => a.metadata.name === 'default')).toBe(true);
      expect(await runs()).toBe(2);
    } finally {
      await t.close();
    }
  });

  it('a client certificate from the plugin authenticates the connection; a rejected one is replaced on new connections', async () => {
    // Run 1 prints a certificate from a CA the server does not trust (so: 401), run 2 the admin certificate.
    const rogue = await issueClientCertificate(await createCertificateAuthority(), { commonName: 'mallory' });
    const admin = configFor(server).getCurrentUser()!;
    await writeFile(join(dir, 'cert-1.pem'), rogue.certPem);
    await writeFile(join(dir, 'key-1.pem'), rogue.keyPem);
    await writeFile(join(dir, 'cert-2.pem'), Buffer.from(admin.certData!, 'base64'));
    await writeFile(join(dir, 'key-2.pem'), Buffer.from(admin.keyData!, 'base64'));
    const kc = await execConfig(`#!/bin/sh
echo run >> "$1/runs"
n=$(wc -l < "$1/runs" | tr -d ' ')
exec node -e 'const fs = require("fs"); const [d, n] = process.argv.slice(1); const read = (f) => fs.readFileSync(d + "/" + f + "-" + n + ".pem", "utf8"); process.stdout.write(JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential", status: { clientCertificateData: read("cert"), clientKeyData: read("key") } }))' "$1" "$n"
`);
    const t = Transport.forConfig(kc);
    try {
      await expect(t.request({ method: 'GET', path: '/api/v1/namespaces/default' })).resolves.toMatchObject({ kind: 'Namespace' });
      await expect(t.request({ method: 'GET', path: '/api/v1/namespaces/kube-system' })).resolves.toMatchObject({ kind: 'Namespace' });
      expect(await runs()).toBe(2);
    } finally {
      await t.close();
    }
  });
});
