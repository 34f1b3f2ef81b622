/**
 * Runner: the plain @kubernetes/client-node baseline. What a team without a multi-cluster runtime writes: find
 * kubeconfigs (a folder watched with fs.watch, or Secrets through a host informer), and per cluster one
 * `makeInformer` on ConfigMaps whose add/update callbacks do the reconciler's work (record the object). No work
 * queue, no dedup, no retries: the floor that a runtime's extra machinery is measured against.
 */
import { watch } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { CoreV1Api, KubeConfig, makeInformer } from '@kubernetes/client-node';
import type { Informer, KubernetesObject, ObjectCache, V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import type { Recorder } from './recorder.js';
import { runnerMain, type StartImpl } from './serve-runner.js';

const secretLabel = 'sigs.k8s.io/multicluster-runtime-kubeconfig';
/** client-node informers stop on error; restarting after a pause is the documented pattern. */
const restartDelayMs = 1000;

type AnyInformer<T extends KubernetesObject> = Informer<T> & ObjectCache<T>;

interface Member {
  readonly kubeconfig: string;
  readonly informer: AnyInformer<V1ConfigMap>;
  synced: boolean;
  stopped: boolean;
  cancelRetry?: () => void;
}

/** One informer per cluster, keyed by cluster name. */
class Members {
  private readonly members = new Map<string, Member>();

  constructor(private readonly recorder: Recorder) {}

  engaged(): number {
    let n = 0;
    for (const m of this.members.values()) if (m.synced) n++;
    return n;
  }

  /** Starts (or, when the kubeconfig changed, restarts) the informer of `name`. */
  async set(name: string, kubeconfig: string): Promise<void> {
    const existing = this.members.get(name);
    if (existing?.kubeconfig === kubeconfig) return;
    if (existing) await this.remove(name);
    const kc = new KubeConfig();
    kc.loadFromString(kubeconfig);
    const api = kc.makeApiClient(CoreV1Api);
    const informer = makeInformer<V1ConfigMap>(kc, '/api/v1/configmaps', () => api.listConfigMapForAllNamespaces());
    const member: Member = { kubeconfig, informer, synced: false, stopped: false };
    this.members.set(name, member);
    const record = (obj: V1ConfigMap): void => this.recorder.record(name, obj);
    informer.on('add', record);
    informer.on('update', record);
    informer.on('delete', () => this.recorder.record(name, undefined));
    // A list failure resolves start() and reports through 'error'; a watch that cannot open rejects start().
    let retry: ReturnType<typeof setTimeout> | undefined;
    let failed = false;
    const again = (): void => {
      failed = true;
      if (!member.stopped && !retry) retry = setTimeout(begin, restartDelayMs);
    };
    const begin = (): void => {
      retry = undefined;
      if (member.stopped) return;
      failed = false;
      informer.start().then(() => {
        if (!failed) member.synced = true;
      }, again);
    };
    informer.on('error', again);
    member.cancelRetry = () => clearTimeout(retry);
    begin();
  }

  async remove(name: string): Promise<void> {
    const member = this.members.get(name);
    if (!member) return;
    this.members.delete(name);
    member.stopped = true;
    member.cancelRetry?.();
    await member.informer.stop();
  }

  async removeAll(): Promise<void> {
    await Promise.all([...this.members.keys()].map((name) => this.remove(name)));
  }
}

function clusterNameOf(file: string): string | undefined {
  const base = basename(file);
  return base.endsWith('.kubeconfig') && !base.startsWith('.') ? base.slice(0, -'.kubeconfig'.length) : undefined;
}

/** Keeps `members` in line with the *.kubeconfig files of `dir`. */
function followFolder(dir: string, members: Members): () => void {
  const sync = async (file: string): Promise<void> => {
    const name = clusterNameOf(file);
    if (!name) return;
    try {
      await members.set(name, await readFile(join(dir, file), 'utf8'));
    } catch {
      await members.remove(name);
    }
  };
  const watcher = watch(dir, (_event, file) => {
    if (file) void sync(file.toString());
  });
  void readdir(dir).then((files) => Promise.all(files.map(sync)));
  return () => watcher.close();
}

/** Keeps `members` in line with the kubeconfig Secrets of `namespace` on the host. */
async function followSecrets(host: KubeConfig, namespace: string, members: Members): Promise<() => Promise<void>> {
  const api = host.makeApiClient(CoreV1Api);
  const selector = `${secretLabel}=true`;
  const informer = makeInformer<V1Secret>(
    host,
    `/api/v1/namespaces/${namespace}/secrets`,
    () => api.listNamespacedSecret({ namespace, labelSelector: selector }),
    selector,
  );
  const apply = (secret: V1Secret): void => {
    const name = secret.metadata?.name;
    const data = secret.data?.['kubeconfig'];
    if (name && data) void members.set(name, Buffer.from(data, 'base64').toString('utf8')).catch(() => members.remove(name));
  };
  informer.on('add', apply);
  informer.on('update', apply);
  informer.on('delete', (secret) => {
    if (secret.metadata?.name) void members.remove(secret.metadata.name);
  });
  let stopped = false;
  informer.on('error', () => {
    if (!stopped) setTimeout(() => void informer.start().catch(() => {}), restartDelayMs);
  });
  await informer.start();
  return async () => {
    stopped = true;
    await informer.stop();
  };
}

const start: StartImpl = async (args, recorder) => {
  const members = new Members(recorder);
  let stopSource: () => Promise<void> | void;
  if (args.provider === 'file') {
    stopSource = followFolder(args.dir, members);
  } else {
    const host = new KubeConfig();
    host.loadFromFile(args.hostKubeconfig);
    stopSource = await followSecrets(host, args.namespace, members);
  }
  return {
    engaged: () => members.engaged(),
    stop: async () => {
      await stopSource();
      await members.removeAll();
    },
  };
};

runnerMain('client-node', start);
