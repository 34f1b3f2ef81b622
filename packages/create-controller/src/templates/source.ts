/**
 * The TypeScript a scaffold writes: src/main.ts (settings from the environment, the host connection, the provider,
 * the manager with leader election, metrics and probes), the sample controller, and its test on in-memory API
 * servers. The sample is a uniform controller built from the toolkit (a finalizer, createOrUpdate, a controller
 * reference, Events), so a new project starts from working patterns, not from a blank reconcile.
 */
import type { ProviderChoice } from '../providers.js';

export function mainTs(name: string, provider: ProviderChoice): string {
  return `/**
 * ${name}: the manager, the provider that finds the fleet (${provider.package}), and the controllers. Settings come from the environment, so one build runs on your machine (\`npm start\`: your current
 * kubeconfig context is the host) and in a Pod (deploy/: the ServiceAccount is the host identity).
 */
import { newManager, signalHandler } from '@multicluster-runtime/core';
${provider.imports}
import { KubeConfig } from '@kubernetes/client-node';
import { setupReplyController } from './controller.js';

const env = (variable: string, fallback: string): string => process.env[variable] || fallback;
/** Where the controller runs: its Lease, and by default its fleet's source of truth. */
const namespace = env('POD_NAMESPACE', 'default');

${provider.setup}

const mgr = newManager(host, provider, {
  // Replicas elect one leader, which reconciles; the others stand by.
  leaderElection: { enabled: env('LEADER_ELECT', 'true') === 'true', namespace, name: '${name}' },
  metricsBindAddress: env('METRICS_BIND_ADDRESS', ':8080'),
  healthProbeBindAddress: env('HEALTH_PROBE_BIND_ADDRESS', ':8081'),
});
setupReplyController(mgr);

await mgr.start(signalHandler());
`;
}

export function controllerTs(name: string): string {
  return `/**
 * The sample controller, a uniform one: in every member cluster, each ConfigMap labelled \`\${REPLY_LABEL}: "true"\`
 * gets a reply ConfigMap beside it (\`<name>-reply\`) saying which cluster answered and how many keys it saw. It shows
 * the toolkit: a finalizer that deletes the reply when the source is deleted, createOrUpdate that writes only when
 * something changed, a controller reference (so the reply's changes reconcile its source, and the garbage
 * collector deletes it with its source), and Events on the source. Replace it with your own; keep the shape: read the
 * current state, converge, return. Removing the label leaves the reply: delete the source to clean up.
 */
import {
  controllerManagedBy,
  createOrUpdate,
  Finalizers,
  ignoreNotFound,
  labelSelectorPredicate,
  setControllerReference,
  type KubeObject,
  type Manager,
} from '@multicluster-runtime/core';

/** Names the controller: its Events' reporting controller. */
export const CONTROLLER_NAME = '${name}';
/** Source ConfigMaps carry this label with the value "true". */
export const REPLY_LABEL = '${name}.example.com/reply';
/** Held on a source until its reply is deleted. */
export const FINALIZER = '${name}.example.com/cleanup';

const configMaps = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

/** The name of the reply to the ConfigMap named \`source\`. */
export const replyName = (source: string): string => \`\${source}-reply\`;

/** Registers the sample controller with the manager. */
export function setupReplyController(mgr: Manager): void {
  controllerManagedBy(mgr)
    .named('reply')
    .for(configMaps, { predicates: [labelSelectorPredicate({ [REPLY_LABEL]: 'true' })] })
    .owns(configMaps)
    .complete(async (req, ctx) => {
      const cluster = await mgr.getCluster(req.clusterName, ctx.signal);
      const source = await cluster.client.get<ConfigMap>(configMaps, req, ctx).catch(ignoreNotFound);
      if (!source) return; // deleted since the event: its finalizer has run

      const replyKey = { namespace: req.namespace, name: replyName(req.name) };
      const finalizers = new Finalizers<ConfigMap>().register(FINALIZER, async (_source, options) => {
        await cluster.client.delete(configMaps, replyKey, options).catch(ignoreNotFound);
      });
      // Adds the finalizer to a live source; on one being deleted, runs the cleanup and removes the finalizer.
      const finalized = await finalizers.finalize(cluster.client, source, ctx);
      if (finalized.gone || source.metadata.deletionTimestamp) {
        return finalized.requeueAfter === undefined ? undefined : { requeueAfter: finalized.requeueAfter };
      }

      const reply: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...replyKey } };
      const operation = await createOrUpdate(
        cluster.client,
        reply,
        (desired) => {
          setControllerReference(source, desired);
          desired.data = { cluster: req.clusterName, keys: String(Object.keys(source.data ?? {}).length) };
        },
        ctx,
      );
      if (operation !== 'unchanged') {
        const reason = operation === 'created' ? 'ReplyCreated' : 'ReplyUpdated';
        const recorder = cluster.getEventRecorderFor(CONTROLLER_NAME);
        recorder.event(source, 'Normal', reason, \`\${operation} ConfigMap \${replyKey.name}\`);
      }
      ctx.log.info('reconciled', { operation });
      return undefined;
    });
}
`;
}

export function controllerTestTs(): string {
  return `/**
 * The sample controller against in-memory API servers from @multicluster-runtime/envtest (no cluster, no Docker):
 * a host and one member, engaged under the name "member" as any provider would engage it.
 */
import { ignoreNotFound, newCluster, newManager, type Client, type KubeObject } from '@multicluster-runtime/core';
import { SingleClusterProvider } from '@multicluster-runtime/core/providers';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, expect, test } from 'vitest';
import { FINALIZER, REPLY_LABEL, replyName, setupReplyController, type ConfigMap } from './controller.js';

const configMaps = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const events = { apiVersion: 'events.k8s.io/v1', kind: 'Event' } as const;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function configOf(server: ApiServer): KubeConfig {
  const config = new KubeConfig();
  config.loadFromString(server.kubeconfig());
  return config;
}

/** Starts a host and a member, and the manager with the sample controller; returns a client of the member. */
async function startFleet(): Promise<Client> {
  const [host, member] = await Promise.all([startApiServer(), startApiServer()]);
  cleanups.push(() => host.close());
  cleanups.push(() => member.close());
  const cluster = newCluster(configOf(member));
  const mgr = newManager(configOf(host), new SingleClusterProvider('member', cluster));
  setupReplyController(mgr);
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  cleanups.push(async () => {
    stop.abort();
    await running;
  });
  return cluster.client;
}

/** A ConfigMap in namespace "default", or undefined when there is none. */
function getConfigMap(client: Client, name: string): Promise<ConfigMap | undefined> {
  return client.get<ConfigMap>(configMaps, { namespace: 'default', name }).catch(ignoreNotFound);
}

function createConfigMap(client: Client, name: string, labels: Record<string, string>, data?: Record<string, string>) {
  return client.create<ConfigMap>({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: 'default', name, labels },
    data,
  });
}

test('a labelled ConfigMap gets a reply owned by it, with an Event; deleting it deletes the reply', async () => {
  const client = await startFleet();
  const source = await createConfigMap(client, 'greeting', { [REPLY_LABEL]: 'true' }, { hello: 'world', answer: '42' });

  await expect
    .poll(async () => (await getConfigMap(client, replyName('greeting')))?.data)
    .toEqual({ cluster: 'member', keys: '2' });
  const reply = await getConfigMap(client, replyName('greeting'));
  expect(reply?.metadata.ownerReferences).toEqual([
    expect.objectContaining({ kind: 'ConfigMap', name: 'greeting', uid: source.metadata.uid, controller: true }),
  ]);
  await expect.poll(async () => (await getConfigMap(client, 'greeting'))?.metadata.finalizers).toEqual([FINALIZER]);
  const reasons = async () =>
    (await client.list<KubeObject & { reason?: string }>(events, { namespace: 'default' })).items.map((e) => e.reason);
  await expect.poll(reasons).toContain('ReplyCreated');

  await client.delete(configMaps, { namespace: 'default', name: 'greeting' });
  await expect.poll(() => getConfigMap(client, replyName('greeting'))).toBeUndefined();
  await expect.poll(() => getConfigMap(client, 'greeting')).toBeUndefined();
});

test('a ConfigMap without the label is left alone', async () => {
  const client = await startFleet();
  await createConfigMap(client, 'plain', {});
  await createConfigMap(client, 'marker', { [REPLY_LABEL]: 'true' });
  // Once the labelled ConfigMap created after it has its reply, the plain one would have had its own.
  await expect.poll(() => getConfigMap(client, replyName('marker'))).toBeDefined();
  expect(await getConfigMap(client, replyName('plain'))).toBeUndefined();
  expect((await getConfigMap(client, 'plain'))?.metadata.finalizers).toBeUndefined();
});
`;
}
