import { describe, expect, it } from 'vitest';
import type { GenericEvent, RequestQueue } from '../handler/types.js';
import { createLogger } from '../log/logger.js';
import { ScriptedCluster } from '../providers/clusters/scripted-cluster.test-util.js';
import type { Request } from '../reconcile/types.js';
import { ChannelSource, channel } from './channel.js';
import { ChannelFullError, SourceAlreadyStartedError } from './errors.js';

const cluster = new ScriptedCluster('a');
const event = (name: string, clusterName = 'a'): GenericEvent => ({
  clusterName,
  cluster,
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name } },
});
const queue = () => {
  const added: Request[] = [];
  const q: RequestQueue = { add: (r) => added.push(r), addAfter: (r) => added.push(r), addRateLimited: (r) => added.push(r) };
  return { q, added };
};
const forObject = {
  generic: (e: GenericEvent, q: RequestQueue) => q.add({ clusterName: e.clusterName, namespace: 'ns', name: e.object.metadata.name! }),
};

describe('channel source', () => {
  it('buffers events until started, then delivers them and later ones through predicates', async () => {
    const src = channel(forObject, { generic: (e) => e.object.metadata.name !== 'skip' });
    src.send(event('early'));
    const { q, added } = queue();
    const stop = new AbortController();
    await src.start(stop.signal, q);
    src.send(event('skip'));
    src.send(event('late', 'b'));
    expect(added.map((r) => `${r.clusterName}/${r.name}`)).toEqual(['a/early', 'b/late']);
    expect(await src.waitForSync()).toBe(true);
    stop.abort();
    src.send(event('after-stop'));
    expect(added).toHaveLength(2);
    await expect(src.start(new AbortController().signal, q)).rejects.toBeInstanceOf(SourceAlreadyStartedError);
  });

  it('refuses events beyond its buffer instead of growing without bound', () => {
    const src = new ChannelSource(forObject, [], { bufferSize: 2 });
    src.send(event('1'));
    src.send(event('2'));
    expect(() => src.send(event('3'))).toThrow(ChannelFullError);
  });

  it('isolates a throwing handler', async () => {
    const logged: string[] = [];
    const src = new ChannelSource(
      {
        generic: () => {
          throw new Error('boom');
        },
      },
      [],
      {
        logger: createLogger({ sink: (_l, msg) => logged.push(msg) }),
      },
    );
    const { q } = queue();
    await src.start(new AbortController().signal, q);
    expect(() => src.send(event('x'))).not.toThrow();
    expect(logged).toEqual(['event handler threw on generic event']);
  });
});
