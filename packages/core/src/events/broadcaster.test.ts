/**
 * The event pipeline's rules with a recording client (the HTTP path, kubectl and the real server are in
 * events.integration.test.ts and toolkit.real.test.ts): aggregation into series, coalesced series updates, the spam
 * limit, the bounded queue, flush on stop, drops counted, and refusals of bad input.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../client/errors.js';
import type { Patch, RequestOptions } from '../client/types.js';
import { noopMetrics, type EventDropReason, type MetricsRecorder } from '../metrics/types.js';
import type { KubeObject, KubeObjectLike, ObjectKey, ObjectKind } from '../object/types.js';
import { EventBroadcaster, type EventBroadcasterOptions } from './broadcaster.js';
import { InvalidEventError } from './errors.js';
import type { EventObject } from './event-object.js';

const pod = (name = 'web-1', uid = `uid-${name}`): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { namespace: 'apps', name, uid, resourceVersion: '7' },
});

/** Records writes; `gate` holds them until released, `failures` answers the next writes with errors. */
class RecordingClient {
  readonly creates: EventObject[] = [];
  readonly patches: { key: ObjectKey; body: unknown }[] = [];
  failures: unknown[] = [];
  private release: (() => void) | undefined;
  private gate: Promise<void> | undefined;

  hold(): void {
    this.gate = new Promise((r) => (this.release = r));
  }
  open(): void {
    this.release?.();
    this.gate = undefined;
  }

  /** Waits for the gate, or rejects when the writer's signal aborts (as the real client does). */
  private async wait(signal: AbortSignal | undefined): Promise<void> {
    if (!this.gate) return;
    await new Promise<void>((resolve, reject) => {
      void this.gate?.then(resolve);
      signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
    });
  }

  async create<T extends KubeObjectLike>(obj: T, options: RequestOptions = {}): Promise<T> {
    await this.wait(options.signal);
    const failure = this.failures.shift();
    if (failure) throw failure as Error;
    this.creates.push(structuredClone(obj) as unknown as EventObject);
    return obj;
  }

  async patch<T extends KubeObjectLike>(_kind: ObjectKind, key: ObjectKey, patch: Patch, options: RequestOptions = {}): Promise<T> {
    await this.wait(options.signal);
    const failure = this.failures.shift();
    if (failure) throw failure as Error;
    this.patches.push({ key, body: structuredClone(patch.body) });
    return {} as T;
  }
}

function setup(options: EventBroadcasterOptions = {}) {
  const client = new RecordingClient();
  const drops: EventDropReason[] = [];
  const metrics: MetricsRecorder = { ...noopMetrics, eventDropped: (_cluster, reason) => void drops.push(reason) };
  const broadcaster = new EventBroadcaster(client, { reportingInstance: 'replica-1', clusterName: 'east', metrics, ...options });
  return { client, drops, broadcaster, recorder: broadcaster.recorderFor('example.com/web-controller') };
}

const apiError = (code: number, reason: string) =>
  ApiError.fromResponse(code, JSON.stringify({ kind: 'Status', code, reason, message: reason.toLowerCase() }));

describe('EventBroadcaster', () => {
  it('writes an events.k8s.io/v1 Event in the object namespace, naming the object, controller and instance', async () => {
    const { client, broadcaster, recorder } = setup();
    recorder.event(pod(), 'Warning', 'BackOff', 'restarting failed container', { action: 'Restart', related: pod('node-x') });
    await broadcaster.stop();
    expect(client.creates).toEqual([
      {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { namespace: 'apps', name: expect.stringMatching(/^web-1\.[0-9a-f]+$/) },
        eventTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
        reportingController: 'example.com/web-controller',
        reportingInstance: 'replica-1',
        action: 'Restart',
        reason: 'BackOff',
        note: 'restarting failed container',
        type: 'Warning',
        regarding: { apiVersion: 'v1', kind: 'Pod', namespace: 'apps', name: 'web-1', uid: 'uid-web-1', resourceVersion: '7' },
        related: { apiVersion: 'v1', kind: 'Pod', namespace: 'apps', name: 'node-x', uid: 'uid-node-x', resourceVersion: '7' },
      },
    ]);
    // A cluster-scoped object's events go to "default".
    const s = setup();
    s.recorder.event({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }, 'Normal', 'Ready', 'ok');
    await s.broadcaster.stop();
    expect(s.client.creates[0]?.metadata.namespace).toBe('default');
  });

  it('aggregates repeats into one Event: the first repeat at once (count 2), the rest coalesced, all written by stop()', async () => {
    const { client, broadcaster, recorder } = setup({ seriesUpdateIntervalMs: 60_000 });
    client.hold();
    recorder.event(pod(), 'Warning', 'SyncFailed', 'first');
    client.open();
    await expect.poll(() => client.creates.length).toBe(1);
    for (let i = 0; i < 9; i++) recorder.event(pod(), 'Warning', 'SyncFailed', `again ${i}`);
    await expect.poll(() => client.patches.length).toBe(1);
    expect(client.patches[0]).toEqual({
      key: { namespace: 'apps', name: client.creates[0]!.metadata.name },
      body: { series: { count: 2, lastObservedTime: expect.any(String) } },
    });
    expect(client.creates).toHaveLength(1);
    await broadcaster.stop();
    expect(client.patches.map((p) => (p.body as { series: { count: number } }).series.count)).toEqual([2, 10]);
    expect(client.creates[0]!.note).toBe('first'); // as client-go: the note of the first occurrence stays
  });

  it('writes repeats that came while the Event was being created as its series right after', async () => {
    const { client, broadcaster, recorder } = setup({ seriesUpdateIntervalMs: 60_000 });
    client.hold();
    for (let i = 0; i < 5; i++) recorder.event(pod(), 'Normal', 'Scaled', 'scaled to 3');
    client.open();
    await expect.poll(() => client.patches.map((p) => p.body)).toEqual([{ series: { count: 5, lastObservedTime: expect.any(String) } }]);
    expect(client.creates).toHaveLength(1);
    await broadcaster.stop();
    expect(client.patches).toHaveLength(1);
  });

  it('keeps different reasons, objects and related objects apart', async () => {
    const { client, broadcaster, recorder } = setup();
    recorder.event(pod('a'), 'Normal', 'Created', 'x');
    recorder.event(pod('b'), 'Normal', 'Created', 'x');
    recorder.event(pod('a'), 'Normal', 'Deleted', 'x');
    recorder.event(pod('a'), 'Normal', 'Created', 'x', { related: pod('c') });
    await broadcaster.stop();
    expect(client.creates).toHaveLength(4);
  });

  it('limits writes per object (spam filter) and counts what it drops', async () => {
    const { client, drops, broadcaster, recorder } = setup({ spamLimit: { burst: 3, refillEveryMs: 3_600_000 } });
    for (let i = 0; i < 6; i++) recorder.event(pod(), 'Warning', `Reason${i}`, 'n');
    recorder.event(pod('other'), 'Warning', 'Reason0', 'n');
    await broadcaster.stop();
    expect(client.creates.map((e) => `${e.regarding.name}:${e.reason}`)).toEqual([
      'web-1:Reason0',
      'web-1:Reason1',
      'web-1:Reason2',
      'other:Reason0',
    ]);
    expect(drops).toEqual(['spam', 'spam', 'spam']);
  });

  it('never blocks: a full queue drops new events and counts them', async () => {
    const { client, drops, broadcaster, recorder } = setup({ queueSize: 2 });
    client.hold();
    const started = performance.now();
    for (let i = 0; i < 100; i++) recorder.event(pod(`p${i}`), 'Normal', 'Created', 'n');
    expect(performance.now() - started).toBeLessThan(1_000);
    client.open();
    await broadcaster.stop();
    // One taken by the writer before the queue filled, two queued.
    expect(client.creates.length).toBe(3);
    expect(drops.filter((d) => d === 'queue_full')).toHaveLength(97);
  });

  it('retries retryable failures, drops refused events, and starts a new Event when its series target is gone', async () => {
    const { client, drops, broadcaster, recorder } = setup();
    client.failures = [apiError(503, 'ServiceUnavailable'), apiError(403, 'Forbidden')];
    recorder.event(pod('a'), 'Normal', 'One', 'n'); // 503, then 403 on the retry: dropped
    await expect.poll(() => drops).toEqual(['write_failed']);
    recorder.event(pod('b'), 'Normal', 'Two', 'n');
    await expect.poll(() => client.creates.length).toBe(1);
    client.failures = [apiError(404, 'NotFound')];
    recorder.event(pod('b'), 'Normal', 'Two', 'n');
    await broadcaster.stop();
    expect(client.creates).toHaveLength(2);
    expect(client.creates[1]!.series?.count).toBe(2);
    expect(client.creates[1]!.metadata.name).not.toBe(client.creates[0]!.metadata.name);
  });

  it('after stop, drops and counts instead of writing; stop is idempotent', async () => {
    const { client, drops, broadcaster, recorder } = setup();
    await broadcaster.stop();
    recorder.event(pod(), 'Normal', 'Late', 'n');
    await broadcaster.stop();
    expect(client.creates).toEqual([]);
    expect(drops).toEqual(['stopped']);
  });

  it('gives up flushing after flushTimeoutMs and drops what is left', async () => {
    const { client, drops, broadcaster, recorder } = setup({ flushTimeoutMs: 50 });
    client.hold();
    recorder.event(pod('a'), 'Normal', 'One', 'n');
    recorder.event(pod('b'), 'Normal', 'Two', 'n');
    const started = performance.now();
    const stopping = broadcaster.stop();
    await expect.poll(() => drops.length).toBeGreaterThanOrEqual(1);
    client.open();
    await stopping;
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(drops.every((d) => d === 'stopped')).toBe(true);
  });

  it('cuts long notes to 1 kB and refuses what the API would reject', () => {
    const { client, broadcaster, recorder } = setup();
    recorder.event(pod(), 'Normal', 'Long', 'é'.repeat(2000));
    void broadcaster.stop().then(() => {
      expect(Buffer.byteLength(client.creates[0]!.note)).toBeLessThanOrEqual(1024);
    });
    expect(() => recorder.event(pod(), 'Error' as 'Warning', 'R', 'n')).toThrow(InvalidEventError);
    expect(() => recorder.event(pod(), 'Normal', '', 'n')).toThrow(/non-empty reason/);
    expect(() => recorder.event({ metadata: { name: 'x' } }, 'Normal', 'R', 'n')).toThrow(/apiVersion, kind and metadata.name/);
    expect(() => broadcaster.recorderFor('Not A Name')).toThrow(/qualified name/);
    expect(() => new EventBroadcaster(client, { queueSize: 0 })).toThrow(/queueSize must be a positive number/);
  });
});
