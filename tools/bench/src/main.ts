#!/usr/bin/env node
/**
 * `npm run bench`: runs the scenarios sequentially (the machine may have two cores: nothing else of the bench runs
 * while one measures), prints a table per scenario on stdout, progress on stderr, and writes everything as JSON with
 * --json. Exits 1 when a scenario or an implementation failed, 2 on bad options.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { writeCharts } from './charts.js';
import { BenchArgsError } from './errors.js';
import { USAGE, parseBenchArgs, type BenchArgs, type ScenarioName } from './args.js';
import { buildGoBaseline, clientNodeImpl, mcrImpl } from './impls.js';
import type { ImplSpec } from './runner-process.js';
import { engageScenario } from './scenarios/engage.js';
import { latencyScenario } from './scenarios/latency.js';
import { memoryScenario, scaleScenario } from './scenarios/memory.js';
import { objectsScenario } from './scenarios/objects.js';
import { parityScenario } from './scenarios/parity.js';
import { namespacesScenario, projectsScenario } from './scenarios/members-scale.js';
import { errorMessage, type ScenarioContext, type ScenarioResult } from './scenarios/scenario.js';
import { throughputScenario } from './scenarios/throughput.js';

const scenarios: Record<ScenarioName, (ctx: ScenarioContext) => Promise<ScenarioResult>> = {
  engage: engageScenario,
  throughput: throughputScenario,
  latency: latencyScenario,
  memory: memoryScenario,
  scale: scaleScenario,
  projects: projectsScenario,
  namespaces: namespacesScenario,
  objects: objectsScenario,
  parity: parityScenario,
};

/** --quick must finish in two minutes; a warm Go build takes seconds, a cold one minutes. */
const quickGoBuildMs = 40_000;

export interface BenchReport {
  meta: Record<string, unknown>;
  scenarios: ScenarioResult[];
  failures: { scenario: string; message: string }[];
}

/** Runs the bench; `out` gets the tables, `progress` the rest. */
export async function runBench(args: BenchArgs, out: (s: string) => void, progress: (s: string) => void): Promise<BenchReport> {
  const started = performance.now();
  const impls: ImplSpec[] = [];
  if (args.impls.includes('mcr')) impls.push(mcrImpl);
  if (args.impls.includes('client-node')) impls.push(clientNodeImpl);
  const meta: Record<string, unknown> = {
    date: new Date().toISOString(),
    quick: args.quick,
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    memoryBytes: totalmem(),
  };
  // The scale scenarios run mcr alone (no baseline has their providers): no Go build for them.
  if (args.impls.includes('go-mcr') && args.scenarios.some((s) => s !== 'projects' && s !== 'namespaces' && s !== 'scale')) {
    progress('building tools/go-baseline …');
    const go = await buildGoBaseline(args.quick ? quickGoBuildMs : undefined);
    if ('impl' in go) {
      impls.push(go.impl);
      meta['go'] = go.goVersion;
      progress(`go-mcr: built in ${(go.buildMs / 1000).toFixed(1)} s (${go.goVersion})`);
    } else {
      meta['goSkipped'] = go.skipped;
      out(`go-mcr baseline skipped: ${go.skipped}\n`);
    }
  }
  meta['impls'] = impls.map((i) => i.name);
  const results: ScenarioResult[] = [];
  const failures: BenchReport['failures'] = [];
  for (const name of args.scenarios) {
    const t0 = performance.now();
    progress(`scenario ${name} …`);
    try {
      const result = await scenarios[name]({ quick: args.quick, impls, progress });
      results.push(result);
      out(`${result.table}\n`);
      for (const e of result.errors) out(`  ${e.impl} (${e.config}) failed: ${e.message}\n`);
      out('\n');
    } catch (err) {
      failures.push({ scenario: name, message: errorMessage(err) });
      out(`${name}: failed: ${errorMessage(err)}\n\n`);
    }
    progress(`scenario ${name} took ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  meta['durationSeconds'] = Math.round((performance.now() - started) / 100) / 10;
  out(`bench took ${String(meta['durationSeconds'])} s\n`);
  return { meta, scenarios: results, failures };
}

/** --from-json: the tables and charts of a report written earlier, nothing run. */
async function drawEarlierReport(file: string, chartsDir: string): Promise<number> {
  let report: BenchReport;
  try {
    report = JSON.parse(await readFile(file, 'utf8')) as BenchReport;
  } catch (err) {
    process.stderr.write(`bench: cannot read the report ${file}: ${errorMessage(err)}\n`);
    return 2;
  }
  if (!Array.isArray(report.scenarios)) {
    process.stderr.write(`bench: ${file} is not a report written by --json (no scenarios)\n`);
    return 2;
  }
  for (const scenario of report.scenarios) process.stdout.write(`${scenario.table}\n\n`);
  for (const chart of await writeCharts(report.scenarios, chartsDir)) process.stderr.write(`chart: ${chart}\n`);
  return 0;
}

async function main(): Promise<number> {
  let args: BenchArgs;
  try {
    args = parseBenchArgs(process.argv.slice(2));
  } catch (err) {
    if (err instanceof BenchArgsError) {
      process.stderr.write(`bench: ${err.message}\n\n${USAGE}\n`);
      return 2;
    }
    throw err;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (args.fromJson) return drawEarlierReport(args.fromJson, args.charts);
  const report = await runBench(
    args,
    (s) => process.stdout.write(s),
    (s) => process.stderr.write(`${s}\n`),
  );
  if (args.json) await writeFile(args.json, `${JSON.stringify(report, null, 2)}\n`);
  for (const file of await writeCharts(report.scenarios, args.charts)) process.stderr.write(`chart: ${file}\n`);
  const failed = report.failures.length > 0 || report.scenarios.some((s) => s.errors.length > 0);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
