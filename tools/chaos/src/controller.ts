/**
 * The controller under chaos, uniform: in every member, each source ConfigMap (labelled SOURCE_LABEL) has a derived
 * ConfigMap `<name>-derived` with the source's data and a `source` key, owned by it; the derived one goes when the
 * source goes. It also reacts to its derived objects (owns), so one deleted behind its back is made again. The
 * adversary can make it throw; `sabotage` makes it skip a third of the sources, for the checker's own test.
 */
import {
  controllerManagedBy,
  createOrUpdate,
  ignoreNotFound,
  labelSelectorPredicate,
  setControllerReference,
  type KubeObject,
  type Manager,
  type ReconcileContext,
  type Request,
} from '@multicluster-runtime/core';

export const SOURCE_LABEL = 'chaos.multicluster-runtime.io/source';
export const NAMESPACE = 'default';
const configMaps = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

export type ConfigMap = KubeObject & { data?: Record<string, string> };

export const derivedName = (source: string): string => `${source}-derived`;

/** What the derived object of `source` must hold. */
export function derivedData(source: ConfigMap): Record<string, string> {
  return { ...source.data, source: source.metadata.name ?? '' };
}

export interface ControllerStats {
  reconciles: number;
  injectedErrors: number;
  /** Share of reconciles that throw, set by the adversary. */
  throwRate: number;
  /** Reconciles that started with their member already disengaged (their signal aborted): must stay 0. */
  startedDisengaged: number;
  /** Per member, when each replica's reconciles ran (ms since the epoch), to find two replicas at once. */
  runs: Map<string, { replica: number; start: number; end: number }[]>;
}

export function newControllerStats(): ControllerStats {
  return { reconciles: 0, injectedErrors: 0, throwRate: 0, startedDisengaged: 0, runs: new Map() };
}

/** Members two replicas reconciled at the same time, with when: must be none (the sharding fence's promise). */
export function overlaps(stats: ControllerStats): string[] {
  const found: string[] = [];
  for (const [cluster, runs] of stats.runs) {
    const sorted = [...runs].sort((a, b) => a.start - b.start);
    for (let i = 0; i < sorted.length; i++) {
      for (let j = i + 1; j < sorted.length && sorted[j]!.start < sorted[i]!.end; j++) {
        if (sorted[j]!.replica !== sorted[i]!.replica) {
          found.push(`${cluster}: replicas ${sorted[i]!.replica} and ${sorted[j]!.replica} reconciled it at once`);
        }
      }
    }
  }
  return found;
}

export function setupChaosController(mgr: Manager, stats: ControllerStats, sabotage: boolean, random: () => number, replica = 0): void {
  const derive = async (req: Request, ctx: ReconcileContext): Promise<void> => {
    stats.reconciles++;
    if (ctx.signal.aborted) stats.startedDisengaged++;
    const run = { replica, start: Date.now(), end: Number.POSITIVE_INFINITY };
    const runs = stats.runs.get(req.clusterName) ?? [];
    stats.runs.set(req.clusterName, runs);
    runs.push(run);
    try {
      await reconcileOne(mgr, stats, sabotage, random, req, ctx);
    } finally {
      run.end = Date.now();
    }
  };
  controllerManagedBy(mgr)
    .named('derive')
    .for(configMaps, { predicates: [labelSelectorPredicate({ [SOURCE_LABEL]: 'true' })] })
    .owns(configMaps)
    .complete(derive);
}

async function reconcileOne(
  mgr: Manager,
  stats: ControllerStats,
  sabotage: boolean,
  random: () => number,
  req: Request,
  ctx: ReconcileContext,
): Promise<void> {
  if (random() < stats.throwRate) {
    stats.injectedErrors++;
    throw new Error('injected by the chaos adversary');
  }
  const member = await mgr.getCluster(req.clusterName, ctx.signal);
  const source = await member.client.get<ConfigMap>(configMaps, req, ctx).catch(ignoreNotFound);
  const key = { namespace: req.namespace, name: derivedName(req.name) };
  if (!source || source.metadata.deletionTimestamp) {
    await member.client.delete(configMaps, key, ctx).catch(ignoreNotFound);
    return;
  }
  if (sabotage && Number(req.name.split('-')[1]) % 3 === 0) return; // loses a third of the sources' work, on purpose
  const derived: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...key } };
  await createOrUpdate(
    member.client,
    derived,
    (d) => {
      setControllerReference(source, d);
      d.data = derivedData(source);
    },
    ctx,
  );
}
