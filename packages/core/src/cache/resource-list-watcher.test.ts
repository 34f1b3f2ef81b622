/** The list/watch half of the cache over real HTTPS: object typing, and metadata-only reads on the wire. */
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../client/client.js';
import { DiscoveryRESTMapper } from '../client/rest-mapper.js';
import { Transport } from '../client/transport.js';
import type { ResourceMapping } from '../client/types.js';
import type { KubeObject } from '../object/types.js';
import type { RawWatchEvent } from './list-watcher.js';
import { resourceListWatcher } from './resource-list-watcher.js';

const SECRET = { apiVersion: 'v1', kind: 'Secret' };
let server: ApiServer;
let transport: Transport;
let client: ApiClient;
let mapping: ResourceMapping;

beforeAll(async () => {
  server = await startApiServer();
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig());
  transport = Transport.forConfig(kc);
  const mapper = new DiscoveryRESTMapper(transport);
  client = new ApiClient(transport, mapper);
  mapping = await mapper.mapping(SECRET);
  await client.create({ ...SECRET, metadata: { namespace: 'default', name: 'listed', labels: { app: 'x' } }, data: { key: 'c2VjcmV0' } });
});
afterAll(async () => {
  await transport.close();
  await server.close();
});

async function firstEvent(events: AsyncIterable<RawWatchEvent>): Promise<RawWatchEvent> {
  for await (const event of events) if (event.type === 'ADDED') return event;
  throw new Error('the watch ended without an event');
}

describe('resourceListWatcher', () => {
  it('lists full objects typed with their resource’s apiVersion and kind', async () => {
    const list = await resourceListWatcher(transport, mapping, { namespace: 'default' }).list({
      limit: 500,
      signal: new AbortController().signal,
    });
    const listed = list.items.find((s) => s.metadata.name === 'listed') as KubeObject & { data?: Record<string, string> };
    expect(listed).toMatchObject({ apiVersion: 'v1', kind: 'Secret', data: { key: 'c2VjcmV0' } });
  });

  it('with metadataOnly, the server sends metadata only, and objects keep the resource’s type', async () => {
    const lw = resourceListWatcher(transport, mapping, { namespace: 'default', metadataOnly: true });
    const list = await lw.list({ limit: 500, signal: new AbortController().signal });
    const listed = list.items.find((s) => s.metadata.name === 'listed');
    expect(listed).toMatchObject({ apiVersion: 'v1', kind: 'Secret', metadata: { labels: { app: 'x' } } });
    expect(listed).not.toHaveProperty('data');

    const stop = new AbortController();
    try {
      const events = await lw.watch({ resourceVersion: list.metadata?.resourceVersion ?? '0', signal: stop.signal, timeoutSeconds: 30 });
      await client.create({ ...SECRET, metadata: { namespace: 'default', name: 'watched' }, data: { key: 'c2VjcmV0' } });
      const event = await firstEvent(events);
      expect(event.object).toMatchObject({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'watched' } });
      expect(event.object).not.toHaveProperty('data');
    } finally {
      stop.abort();
    }
  });
});
