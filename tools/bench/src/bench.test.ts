/**
 * Smoke test of `npm run bench -- --quick` on its smallest scenario: the built CLI runs real runner processes against
 * a real fleet server and must produce well-formed JSON with a figure for each implementation. Not a performance
 * test: no thresholds on the figures beyond their being measured.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { readTrace } from './latency-trace-report.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../', import.meta.url));
let dir: string;

beforeAll(async () => {
  // The CLI and its runners run as built JavaScript (child processes cannot load TypeScript on Node 20).
  await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-b', join(root, 'tools/bench/tsconfig.json')], {
    cwd: root,
  });
  dir = await mkdtemp(join(tmpdir(), 'bench-test-'));
}, 240_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface QuickReport {
  meta: { quick: boolean; impls: string[] };
  failures: unknown[];
  scenarios: { name: string; params: Record<string, any>; errors: unknown[]; results: Record<string, any>[] }[];
}

/** Runs one scenario with `--quick` for mcr and client-node, writing its report to `json` and its chart beside. */
async function runQuick(scenario: string, json: string): Promise<{ stdout: string; report: QuickReport }> {
  const args = ['--quick', '--scenarios', scenario, '--impls', 'mcr,client-node', '--json', json, '--charts', join(dir, 'charts')];
  const { stdout } = await run(process.execPath, [join(root, 'tools/bench/dist/main.js'), ...args], { cwd: root, timeout: 110_000 });
  return { stdout, report: JSON.parse(await readFile(json, 'utf8')) as QuickReport };
}

test('--quick latency finds the fleet capacity and reports each implementation at half of it and at all of it', async () => {
  const json = join(dir, 'report.json');
  const { stdout, report } = await runQuick('latency', json);
  expect(stdout).toContain("Event -> reconcile latency at half the fleet's capacity and at all of it");
  expect(report.meta).toMatchObject({ quick: true, impls: ['mcr', 'client-node'] });
  expect(report.failures).toEqual([]);
  expect(report.scenarios.map((s) => s.name)).toEqual(['latency']);
  const [latency] = report.scenarios;
  expect(latency!.errors).toEqual([]);
  const capacity = latency!.params['capacity'] as number;
  expect(capacity).toBeGreaterThan(0);
  expect(latency!.params['discardFirstTurn']).toBe(true);
  expect(latency!.results.map((r) => `${r['impl']} ${r['load']}`)).toEqual([
    'mcr half',
    'mcr saturated',
    'client-node half',
    'client-node saturated',
  ]);
  for (const r of latency!.results) {
    expect(r['targetRate']).toBe(Math.round(r['load'] === 'half' ? capacity / 2 : capacity));
    expect(r['achievedRate'].median).toBeGreaterThan(0);
    expect(r['latencyMs'].n).toBeGreaterThan(0);
    expect(r['latencyMs'].p50).toBeGreaterThan(0);
    expect(r['latencyMs'].p99).toBeGreaterThanOrEqual(r['latencyMs'].p50);
    expect(r['reconcilesPerUpdate']).toBeGreaterThan(0);
    expect(r['cpuMsPer1000Events'].median).toBeGreaterThan(0);
    expect(r['fleetCpuMsPer1000Events'].median).toBeGreaterThan(0);
    // One window per implementation and load; mcr's extra first turn is run but not counted.
    expect(r['windowP99Ms'].samples).toHaveLength(1);
    expect(r['windowsLeftOut']).toBe(r['impl'] === 'mcr' ? 1 : 0);
    const ms = (r['percentilesMs'] as { p: number; ms: number }[]).map((x) => x.ms);
    expect(ms).toHaveLength(101);
    expect(ms).toEqual([...ms].sort((a, b) => a - b));
  }
  // The chart: an SVG with a line per implementation in each of the two panels, labelled.
  const svg = await readFile(join(dir, 'charts', 'latency.svg'), 'utf8');
  expect(svg).toMatch(/^<svg /);
  expect(svg).toContain('Event -&gt; reconcile latency by percentile');
  expect(svg).toContain('client-node');
  expect(svg.match(/class="mark-line role-mark/g) ?? []).toHaveLength(4); // 2 implementations x 2 loads
  // --from-json draws the same chart from the report, running nothing.
  const again = await run(process.execPath, [join(root, 'tools/bench/dist/main.js'), '--from-json', json, '--charts', join(dir, 'again')], {
    cwd: root,
    timeout: 60_000,
  });
  expect(again.stdout).toContain("Event -> reconcile latency at half the fleet's capacity");
  expect(await readFile(join(dir, 'again', 'latency.svg'), 'utf8')).toBe(svg);
}, 120_000);

test("MCR_BENCH_LATENCY_TRACE splits mcr's latency at the controller and records each process's event-loop stalls", async () => {
  const traceDir = join(dir, 'trace');
  await mkdir(traceDir);
  await run(process.execPath, [join(root, 'tools/bench/dist/main.js'), '--quick', '--scenarios', 'latency', '--impls', 'mcr'], {
    cwd: root,
    timeout: 110_000,
    env: { ...process.env, MCR_BENCH_LATENCY_TRACE: traceDir },
  });
  const trace = readTrace(traceDir);
  expect(trace.events).toBeGreaterThan(100);
  for (const p of trace.percentiles) {
    expect(p.beforeMs).toBeGreaterThan(0);
    expect(p.insideMs).toBeGreaterThanOrEqual(0);
    expect(p.totalMs).toBeGreaterThanOrEqual(Math.max(p.beforeMs, p.insideMs));
  }
  expect(trace.slowest.events).toBeGreaterThan(0);
  expect(trace.slowest.beforeMs + trace.slowest.insideMs).toBeGreaterThanOrEqual(trace.slowest.thresholdMs);
  // The writer's process, the fleet server and the runner each wrote their stalls (a runner's start-up is one).
  expect(trace.processes.map((p) => p.role).sort()).toEqual(['bench (writer)', 'fleet (API servers)', 'mcr runner']);
  const runner = trace.processes.find((p) => p.role === 'mcr runner')!;
  expect(runner.stalls).toBeGreaterThan(0);
  expect(runner.cpuInStallsMs).toBeGreaterThan(0);
  const { stdout } = await run(process.execPath, [join(root, 'tools/bench/dist/latency-trace-report.js'), traceDir], { cwd: root });
  expect(stdout).toMatch(/^mcr: \d+ events/);
  expect(stdout).toContain('fleet (API servers) (pid ');

  // A folder that is missing, or holds no trace, is said so instead of a stack trace or a report of NaNs.
  const report = (folder: string) =>
    run(process.execPath, [join(root, 'tools/bench/dist/latency-trace-report.js'), folder], { cwd: root }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
  expect(await report(join(dir, 'no-such-folder'))).toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/^latency-trace-report: cannot read .*no-such-folder: ENOENT/),
  });
  const empty = join(dir, 'empty-trace');
  await mkdir(empty);
  expect(await report(empty)).toMatchObject({ code: 1, stderr: expect.stringContaining('no mcr events in') });
}, 120_000);

test("--quick throughput reports each implementation's reconciles/s and the CPU per update of the runner, the fleet and the writer", async () => {
  const { stdout, report } = await runQuick('throughput', join(dir, 'throughput.json'));
  expect(stdout).toContain('CPU: ms per 1,000 updates of the runner, the fleet server and the writer');
  expect(report.failures).toEqual([]);
  const [throughput] = report.scenarios;
  expect(throughput!.errors).toEqual([]);
  expect(throughput!.params['discardFirstTurn']).toBe(true);
  expect(throughput!.results.map((r) => r['impl'])).toEqual(['mcr', 'client-node']);
  for (const r of throughput!.results) {
    expect(r['reconcilesPerSecond'].median).toBeGreaterThan(0);
    // mcr took the first turn: run, and left out.
    expect(r['windowsLeftOut']).toBe(r['impl'] === 'mcr' ? 1 : 0);
    // Every update costs each process some CPU: a figure of 0 would mean the process was not measured.
    for (const cpu of ['cpuMsPer1000Events', 'fleetCpuMsPer1000Events', 'writerCpuMsPer1000Events']) {
      // One window each: mcr's extra first turn is run but not counted.
      expect(r[cpu].samples).toHaveLength(1);
      expect(r[cpu].median).toBeGreaterThan(0);
    }
  }
}, 120_000);

test('--quick objects syncs one big cluster in each implementation and reports each figure as a median with its turns', async () => {
  const { stdout, report } = await runQuick('objects', join(dir, 'objects.json'));
  expect(stdout).toContain('One cluster with 10000 ConfigMaps');
  expect(report.failures).toEqual([]);
  const [objects] = report.scenarios;
  expect(objects!.errors).toEqual([]);
  expect(objects!.params).toEqual({ objects: 10_000, rounds: 1 });
  expect(objects!.results.map((r) => r['impl'])).toEqual(['mcr', 'client-node']);
  for (const r of objects!.results) {
    for (const figure of ['syncSeconds', 'allReconciledSeconds', 'heapBytesPerObject', 'heapBytes', 'rssBytes']) {
      expect(r[figure].samples).toHaveLength(1);
      expect(r[figure].median).toBeGreaterThan(0);
    }
    // Every object is reconciled after the list that makes the first reconcile possible.
    expect(r['allReconciledSeconds'].median).toBeGreaterThanOrEqual(r['syncSeconds'].median);
  }
}, 120_000);

test('--quick projects engages every Milo project and reports memory per project, idle and with informers', async () => {
  const json = join(dir, 'projects.json');
  const { stdout } = await run(
    process.execPath,
    [join(root, 'tools/bench/dist/main.js'), '--quick', '--scenarios', 'projects', '--impls', 'mcr', '--json', json],
    { cwd: root, timeout: 60_000 },
  );
  expect(stdout).toContain('Milo projects engaged in one process (mcr MiloProvider, project mode; 100 ready projects');
  expect(stdout).toContain('milo-os/milo#631');
  const report = JSON.parse(await readFile(json, 'utf8')) as {
    failures: unknown[];
    scenarios: { name: string; errors: unknown[]; results: Record<string, any>[] }[];
  };
  expect(report.failures).toEqual([]);
  const [projects] = report.scenarios;
  expect(projects).toMatchObject({ name: 'projects', errors: [] });
  expect(projects!.results).toHaveLength(1);
  const r = projects!.results[0]!;
  expect(r).toMatchObject({ impl: 'mcr', members: 100, objectsPerMember: 2 });
  expect(r['informers'].reconciles).toBeGreaterThanOrEqual(200);
  for (const stage of [r['engaged'], r['informers']]) {
    expect(stage.seconds).toBeGreaterThan(0);
    expect(stage.heapBytes).toBeGreaterThan(r['before'].heapBytes);
    expect(stage.heapBytesPerMember).toBeCloseTo((stage.heapBytes - r['before'].heapBytes) / 100);
  }
  // A watching informer per project costs more than an idle project.
  expect(r['informers'].heapBytes).toBeGreaterThan(r['engaged'].heapBytes);
}, 70_000);

test('--quick namespaces engages 100 namespaces of one server and reports memory per namespace, idle, with informers and after 10 more join', async () => {
  const json = join(dir, 'namespaces.json');
  const { stdout } = await run(
    process.execPath,
    [join(root, 'tools/bench/dist/main.js'), '--quick', '--scenarios', 'namespaces', '--impls', 'mcr', '--json', json],
    { cwd: root, timeout: 60_000 },
  );
  expect(stdout).toContain('Namespaces engaged in one process (mcr NamespaceProvider; 100 namespaces of one API server');
  const report = JSON.parse(await readFile(json, 'utf8')) as {
    failures: unknown[];
    scenarios: { name: string; errors: unknown[]; results: Record<string, any>[] }[];
  };
  expect(report.failures).toEqual([]);
  const [namespaces] = report.scenarios;
  expect(namespaces).toMatchObject({ name: 'namespaces', errors: [] });
  const r = namespaces!.results[0]!;
  expect(r).toMatchObject({ impl: 'mcr', members: 100, objectsPerMember: 2 });
  expect(r['informers'].reconciles).toBeGreaterThanOrEqual(200);
  for (const stage of [r['engaged'], r['informers']]) {
    expect(stage.seconds).toBeGreaterThan(0);
    expect(stage.heapBytesPerMember).toBeCloseTo((stage.heapBytes - r['before'].heapBytes) / 100);
  }
  // Namespaces labelled after the informer synced: engaged and reconciled from what it already held.
  expect(r['joined']).toMatchObject({ joiners: 10 });
  expect(r['joined'].seconds).toBeGreaterThan(0);
  expect(r['joined'].heapBytesPerMember).toBeCloseTo((r['joined'].heapBytes - r['before'].heapBytes) / 110);
  expect(stdout).toMatch(/\n100 +10 more join /);
}, 70_000);

test('parity: the Go kubeconfig Secret provider and ours engage and reconcile alike under the same Secret changes', async () => {
  const json = join(dir, 'parity.json');
  await run(process.execPath, [join(root, 'tools/bench/dist/main.js'), '--scenarios', 'parity', '--impls', 'mcr,go-mcr', '--json', json], {
    cwd: root,
    timeout: 300_000,
  });
  const report = JSON.parse(await readFile(json, 'utf8')) as {
    meta: { goSkipped?: string };
    scenarios: { name: string; errors: unknown[]; results: Record<string, string>[] }[];
  };
  if (report.meta.goSkipped) return; // no Go here: the table says why
  const [parity] = report.scenarios;
  expect(parity).toMatchObject({ name: 'parity', errors: [] });
  expect(parity!.results.map((r) => [r['step'], r['mcr'], r['go-mcr']])).toEqual([
    ['Secrets a and b appear', '2 engaged, 6 reconciles', '2 engaged, 6 reconciles'],
    ['Secret a is deleted', '1 engaged, 6 reconciles', '1 engaged, 6 reconciles'],
    ['Secret b is rewritten to member 2', '1 engaged, 9 reconciles', '1 engaged, 9 reconciles'],
  ]);
}, 320_000);

test('the scale scenario asked of go-mcr alone says it skipped it, and why', async () => {
  const { stdout } = await run(
    process.execPath,
    [join(root, 'tools/bench/dist/main.js'), '--quick', '--scenarios', 'scale', '--impls', 'go-mcr'],
    { cwd: root, timeout: 30_000 },
  );
  expect(stdout).toContain('Scale: skipped (mcr and client-node run it; go-mcr engages one cluster at a time)');
}, 40_000);

test('bad options exit 2 with the usage', async () => {
  const err = await run(process.execPath, [join(root, 'tools/bench/dist/main.js'), '--scenarios', 'nope'], { cwd: root }).catch(
    (e: unknown) => e,
  );
  expect(err).toMatchObject({ code: 2 });
  expect((err as { stderr: string }).stderr).toMatch(/--scenarios takes a comma-separated subset[\s\S]*Usage: npm run bench/);
});
