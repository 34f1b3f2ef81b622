/**
 * Milo projects at fleet scale (issue 9): N ready Projects on a fake Milo (in its own process), engaged by one
 * manager with MiloProvider in project mode. Measures the time from the manager's start until all N are engaged, and
 * heap and RSS per project after forced GC (minus the same process before starting), first with the projects engaged
 * and idle, then once one ConfigMap controller has started its informer in every project and reconciled each
 * project's ConfigMaps. Only mcr runs it: neither baseline has a Milo provider. Milo's own provider ran out of memory
 * at about 400 projects (milo-os/milo#631: ~5.5 GiB at ~395 projects, about 14 MiB each), quoted as context only.
 */
import { MiloFleetProcess } from '../fleet/milo-fleet-process.js';
import { MiloRunnerProcess } from '../milo-runner-process.js';
import type { MemoryReply } from '../protocol.js';
import { spread } from '../stats.js';
import { formatNumber, renderTable } from '../table.js';
import { errorMessage, type ScenarioContext, type ScenarioResult } from './scenario.js';

export interface ProjectsStage {
  /** Median of three readings after forced GC. */
  heapBytes: number;
  rssBytes: number;
  heapBytesPerProject: number;
  rssBytesPerProject: number;
  /** engaged: from the manager's start to the last project engaged; informers: from adding the controller to every project's ConfigMaps reconciled. */
  seconds: number;
}

export interface ProjectsResult {
  impl: 'mcr';
  projects: number;
  objectsPerProject: number;
  before: { heapBytes: number; rssBytes: number };
  engaged: ProjectsStage;
  informers: ProjectsStage & { reconciles: number };
}

const settleMs = 1000;
const objects = 2;
const title = (projects: number): string =>
  `Milo projects engaged in one process (mcr MiloProvider, project mode; ${projects} ready ` +
  `projects, ${objects} ConfigMaps each; after GC, minus the process before starting)\n` +
  "For context, not measured here: Milo's own provider used ~14 MiB per project (milo-os/milo#631)";

async function settledMemory(read: () => Promise<MemoryReply>): Promise<{ heapBytes: number; rssBytes: number }> {
  const readings: MemoryReply[] = [];
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setTimeout(r, settleMs / 2));
    readings.push(await read());
  }
  return { heapBytes: spread(readings.map((r) => r.heapBytes)).median, rssBytes: spread(readings.map((r) => r.rssBytes)).median };
}

async function measure(fleet: MiloFleetProcess): Promise<ProjectsResult> {
  const { projects } = fleet;
  const runner = await MiloRunnerProcess.start(fleet.kubeconfigPath, projects, objects);
  try {
    const before = await settledMemory(() => runner.memory());
    const stage = (m: { heapBytes: number; rssBytes: number }, seconds: number): ProjectsStage => ({
      ...m,
      seconds,
      heapBytesPerProject: (m.heapBytes - before.heapBytes) / projects,
      rssBytesPerProject: (m.rssBytes - before.rssBytes) / projects,
    });
    const engage = await runner.engage(60_000 + projects * 200);
    const engaged = stage(await settledMemory(() => runner.memory()), engage.engageMs / 1000);
    const watch = await runner.watch(60_000 + projects * 300);
    const informers = { ...stage(await settledMemory(() => runner.memory()), watch.watchMs / 1000), reconciles: watch.reconciles };
    return { impl: 'mcr', projects, objectsPerProject: objects, before, engaged, informers };
  } finally {
    await runner.stop();
  }
}

export async function projectsScenario(ctx: ScenarioContext): Promise<ScenarioResult> {
  const projects = ctx.quick ? 100 : 1000;
  const params = { projects, objectsPerProject: objects, readings: 3, miloOwnProviderMiBPerProject: 14 };
  if (!ctx.impls.some((i) => i.name === 'mcr')) {
    return {
      name: 'projects',
      title: 'Milo projects engaged in one process',
      params,
      results: [],
      errors: [],
      table: 'Milo projects engaged in one process: skipped (only mcr runs it; no baseline has a Milo provider)',
    };
  }
  const results: ProjectsResult[] = [];
  const errors: ScenarioResult['errors'] = [];
  ctx.progress(`projects: creating ${projects} ready Milo projects …`);
  const fleet = await MiloFleetProcess.start(projects, objects);
  try {
    const r = await measure(fleet);
    results.push(r);
    ctx.progress(
      `projects mcr ${projects}: all engaged in ${formatNumber(r.engaged.seconds)} s, ` +
        `${formatNumber(r.engaged.heapBytesPerProject / 1024)} KiB heap per project, ${formatNumber(r.informers.heapBytesPerProject / 1024)} KiB with informers`,
    );
  } catch (err) {
    errors.push({ impl: 'mcr', config: `projects=${projects}`, message: errorMessage(err) });
    ctx.progress(`projects mcr ${projects} failed: ${errorMessage(err)}`);
  } finally {
    await fleet.close();
  }

  const kib = (b: number | undefined): string => formatNumber(b === undefined ? undefined : b / 1024);
  const mib = (b: number | undefined): string => formatNumber(b === undefined ? undefined : b / 1024 / 1024);
  const header = ['projects', 'stage', 'heap KiB/project', 'RSS KiB/project', 'heap MiB', 'RSS MiB', 'took s'];
  const r = results[0];
  const rows = [
    [
      String(projects),
      'engaged, idle',
      kib(r?.engaged.heapBytesPerProject),
      kib(r?.engaged.rssBytesPerProject),
      mib(r?.engaged.heapBytes),
      mib(r?.engaged.rssBytes),
      formatNumber(r?.engaged.seconds),
    ],
    [
      String(projects),
      'informers started',
      kib(r?.informers.heapBytesPerProject),
      kib(r?.informers.rssBytesPerProject),
      mib(r?.informers.heapBytes),
      mib(r?.informers.rssBytes),
      formatNumber(r?.informers.seconds),
    ],
  ];
  return {
    name: 'projects',
    title: 'Milo projects engaged in one process',
    params,
    results: results as unknown as Record<string, unknown>[],
    errors,
    table: renderTable(title(projects), header, rows),
  };
}
