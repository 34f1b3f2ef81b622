/**
 * Fleet scale in one process: N members engaged by one manager, the members served by a process of their own. Two
 * scenarios share it. `projects` (issue 9): N ready Milo Projects, MiloProvider in project mode; Milo's own provider
 * ran out of memory at about 400 projects (milo-os/milo#631: ~5.5 GiB at ~395 projects, about 14 MiB each), quoted as
 * context only. `namespaces` (issue 19): N namespaces of one API server, NamespaceProvider, whose members share the
 * host's informers. Each measures the time from the manager's start until all N are engaged, and heap and RSS per
 * member after forced GC (minus the same process before starting), first with the members engaged and idle, then once
 * one ConfigMap controller has reconciled every member's ConfigMaps; for namespaces, then once N/10 more namespaces,
 * whose ConfigMaps the shared informer already holds, were labelled as members and reconciled (the late-join path).
 * Only mcr runs them: no baseline has these providers.
 */
import { MembersFleetProcess } from '../fleet/members-fleet-process.js';
import type { MembersKind } from '../fleet/members-fleet-server.js';
import { MembersRunnerProcess } from '../members-runner-process.js';
import { formatNumber, renderTable } from '../table.js';
import { errorMessage, type ScenarioContext, type ScenarioResult } from './scenario.js';
import { settledMemory } from './settled-memory.js';

export interface MembersStage {
  /** Median of three readings after forced GC. */
  heapBytes: number;
  rssBytes: number;
  heapBytesPerMember: number;
  rssBytesPerMember: number;
  /** engaged: from the manager's start to the last member engaged; informers: from adding the controller to every member's ConfigMaps reconciled. */
  seconds: number;
}

export interface MembersResult {
  impl: 'mcr';
  members: number;
  objectsPerMember: number;
  before: { heapBytes: number; rssBytes: number };
  engaged: MembersStage;
  informers: MembersStage & { reconciles: number };
  /**
   * Namespaces only: after the informers stage, N/10 more namespaces, whose ConfigMaps the host's informer already
   * holds, are labelled as members. `seconds`: from the label request until all are engaged and their ConfigMaps
   * reconciled; memory per member counts every member, the joiners too.
   */
  joined?: MembersStage & { joiners: number };
}

interface ScaleSpec {
  name: 'projects' | 'namespaces';
  kind: MembersKind;
  /** What a member is, singular and plural, for the table. */
  noun: string;
  nouns: string;
  title(members: number): string;
  params?: Record<string, unknown>;
}

const objects = 2;

const specs: Record<'projects' | 'namespaces', ScaleSpec> = {
  projects: {
    name: 'projects',
    kind: 'milo',
    noun: 'project',
    nouns: 'Milo projects',
    title: (n) =>
      `Milo projects engaged in one process (mcr MiloProvider, project mode; ${n} ready projects, ${objects} ConfigMaps each; ` +
      "after GC, minus the process before starting)\nFor context, not measured here: Milo's own provider used ~14 MiB per project (milo-os/milo#631)",
    params: { miloOwnProviderMiBPerProject: 14 },
  },
  namespaces: {
    name: 'namespaces',
    kind: 'namespaces',
    noun: 'namespace',
    nouns: 'namespaces',
    title: (n) =>
      `Namespaces engaged in one process (mcr NamespaceProvider; ${n} namespaces of one API server, ${objects} ConfigMaps each; ` +
      'after GC, minus the process before starting)\nThen N/10 namespaces whose ConfigMaps the informer already holds are labelled ' +
      'as members: label written -> all engaged and reconciled (memory per namespace counts them too)',
  },
};

async function measure(fleet: MembersFleetProcess, quick: boolean): Promise<MembersResult> {
  const { members } = fleet;
  const runner = await MembersRunnerProcess.start(fleet.kind, fleet.kubeconfigPath, members, objects);
  try {
    const before = await settledMemory(() => runner.memory(), quick);
    const stage = (m: { heapBytes: number; rssBytes: number }, seconds: number, count = members): MembersStage => ({
      ...m,
      seconds,
      heapBytesPerMember: (m.heapBytes - before.heapBytes) / count,
      rssBytesPerMember: (m.rssBytes - before.rssBytes) / count,
    });
    const engage = await runner.engage(60_000 + members * 200);
    const engaged = stage(await settledMemory(() => runner.memory(), quick), engage.engageMs / 1000);
    const watch = await runner.watch(60_000 + members * 300);
    const informers = { ...stage(await settledMemory(() => runner.memory(), quick), watch.watchMs / 1000), reconciles: watch.reconciles };
    const result: MembersResult = { impl: 'mcr', members, objectsPerMember: objects, before, engaged, informers };
    if (fleet.kind === 'namespaces') {
      // The runner starts its clock before the labels are written, and answers once it has seen them all through.
      const joining = runner.join(60_000 + members * 100);
      await fleet.join();
      const join = await joining;
      const memory = await settledMemory(() => runner.memory(), quick);
      result.joined = { ...stage(memory, join.joinMs / 1000, members + join.joiners), joiners: join.joiners };
    }
    return result;
  } finally {
    await runner.stop();
  }
}

async function membersScale(spec: ScaleSpec, ctx: ScenarioContext): Promise<ScenarioResult> {
  const members = ctx.quick ? 100 : 1000;
  const params = { members, objectsPerMember: objects, readings: 3, ...spec.params };
  const title = `${spec.nouns[0]!.toUpperCase()}${spec.nouns.slice(1)} engaged in one process`;
  if (!ctx.impls.some((i) => i.name === 'mcr')) {
    return {
      name: spec.name,
      title,
      params,
      results: [],
      errors: [],
      table: `${title}: skipped (only mcr runs it; no baseline has this provider)`,
    };
  }
  const results: MembersResult[] = [];
  const errors: ScenarioResult['errors'] = [];
  ctx.progress(`${spec.name}: creating ${members} ${spec.nouns} …`);
  const fleet = await MembersFleetProcess.start(spec.kind, members, objects);
  try {
    const r = await measure(fleet, ctx.quick);
    results.push(r);
    ctx.progress(
      `${spec.name} mcr ${members}: all engaged in ${formatNumber(r.engaged.seconds)} s, ` +
        `${formatNumber(r.engaged.heapBytesPerMember / 1024)} KiB heap per ${spec.noun}, ${formatNumber(r.informers.heapBytesPerMember / 1024)} KiB with informers`,
    );
  } catch (err) {
    errors.push({ impl: 'mcr', config: `${spec.name}=${members}`, message: errorMessage(err) });
    ctx.progress(`${spec.name} mcr ${members} failed: ${errorMessage(err)}`);
  } finally {
    await fleet.close();
  }

  const kib = (b: number | undefined): string => formatNumber(b === undefined ? undefined : b / 1024);
  const mib = (b: number | undefined): string => formatNumber(b === undefined ? undefined : b / 1024 / 1024);
  const header = [spec.nouns, 'stage', `heap KiB/${spec.noun}`, `RSS KiB/${spec.noun}`, 'heap MiB', 'RSS MiB', 'took s'];
  const r = results[0];
  const row = (stage: string, s: MembersStage | undefined) => [
    String(members),
    stage,
    kib(s?.heapBytesPerMember),
    kib(s?.rssBytesPerMember),
    mib(s?.heapBytes),
    mib(s?.rssBytes),
    formatNumber(s?.seconds),
  ];
  return {
    name: spec.name,
    title,
    params,
    results: results as unknown as Record<string, unknown>[],
    errors,
    table: renderTable(spec.title(members), header, [
      row('engaged, idle', r?.engaged),
      row('informers started', r?.informers),
      ...(spec.name === 'namespaces' ? [row(`${r?.joined?.joiners ?? '?'} more join`, r?.joined)] : []),
    ]),
  };
}

/** 1,000 (100 with --quick) ready Milo projects engaged by MiloProvider. */
export function projectsScenario(ctx: ScenarioContext): Promise<ScenarioResult> {
  return membersScale(specs.projects, ctx);
}

/** 1,000 (100 with --quick) namespaces of one API server engaged by NamespaceProvider. */
export function namespacesScenario(ctx: ScenarioContext): Promise<ScenarioResult> {
  return membersScale(specs.namespaces, ctx);
}
