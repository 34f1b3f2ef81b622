/**
 * Parity with the Go original (issue 20): the upstream kubeconfig Secret provider (go-mcr: tools/go-baseline, built
 * from sigs.k8s.io/multicluster-runtime) and ours (mcr), side by side against the same host and members, under the
 * same Secret changes: two Secrets appear, one is deleted, the other is rewritten in place to reach another member.
 * After each step both must have the same clusters engaged, and both must have reconciled the objects of every member
 * a Secret led to. Any difference is an error of the scenario (the bench exits 1).
 */
import { BENCH_NAMESPACE } from '../fleet/fleet-names.js';
import { FleetProcess } from '../fleet/fleet-process.js';
import { RunnerProcess } from '../runner-process.js';
import { renderTable } from '../table.js';
import { STEADY_CONCURRENCY } from './engaged-runner.js';
import { errorMessage, type ScenarioContext, type ScenarioResult } from './scenario.js';

interface Observation {
  engaged: number;
  reconciles: number;
}

async function settle(runner: RunnerProcess, want: (o: Observation) => boolean, timeoutMs = 30_000): Promise<Observation> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const o = { engaged: await runner.engaged(), reconciles: (await runner.stats()).reconciles };
    if (want(o) || Date.now() > deadline) return o;
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function parityScenario(ctx: ScenarioContext): Promise<ScenarioResult> {
  const impls = ctx.impls.filter((i) => i.name === 'mcr' || i.name === 'go-mcr');
  const title = 'Parity with the Go kubeconfig Secret provider';
  if (impls.length < 2) {
    return { name: 'parity', title, params: {}, results: [], errors: [], table: `${title}: skipped (needs mcr and go-mcr)` };
  }
  const objects = 3;
  const fleet = await FleetProcess.start(3, objects);
  const runners: RunnerProcess[] = [];
  const rows: string[][] = [];
  const errors: ScenarioResult['errors'] = [];
  try {
    for (const impl of impls) {
      runners.push(
        await RunnerProcess.start(impl, {
          provider: 'secret',
          dir: '',
          hostKubeconfig: fleet.hostKubeconfigPath,
          namespace: BENCH_NAMESPACE,
          concurrency: STEADY_CONCURRENCY,
        }),
      );
    }
    // Each step: the change, then what every implementation must show (engaged clusters, reconciles at least).
    const steps: { name: string; act: () => Promise<unknown>; engaged: number; reconciles: number }[] = [
      {
        name: 'Secrets a and b appear',
        act: () => Promise.all([fleet.publishSecret('a', 0), fleet.publishSecret('b', 1)]),
        engaged: 2,
        reconciles: 2 * objects,
      },
      { name: 'Secret a is deleted', act: () => fleet.unpublishSecret('a'), engaged: 1, reconciles: 2 * objects },
      { name: 'Secret b is rewritten to member 2', act: () => fleet.rotateSecret('b', 2), engaged: 1, reconciles: 3 * objects },
    ];
    for (const step of steps) {
      await step.act();
      const seen = await Promise.all(runners.map((r) => settle(r, (o) => o.engaged === step.engaged && o.reconciles >= step.reconciles)));
      rows.push([step.name, ...seen.map((o) => `${o.engaged} engaged, ${o.reconciles} reconciles`)]);
      for (const [i, o] of seen.entries()) {
        if (o.engaged !== step.engaged || o.reconciles < step.reconciles) {
          errors.push({
            impl: impls[i]!.name,
            config: step.name,
            message: `expected ${step.engaged} engaged and at least ${step.reconciles} reconciles, saw ${o.engaged} and ${o.reconciles}`,
          });
        }
      }
      ctx.progress(`parity: ${step.name}: ${rows.at(-1)!.slice(1).join(' | ')}`);
    }
  } catch (err) {
    errors.push({ impl: 'parity', config: 'setup', message: errorMessage(err) });
  } finally {
    await Promise.all(runners.map((r) => r.stop()));
    await fleet.close();
  }
  return {
    name: 'parity',
    title,
    params: { members: 3, objectsPerMember: objects },
    results: rows.map(([step, ...seen]) => ({ step, ...Object.fromEntries(impls.map((impl, i) => [impl.name, seen[i]])) })),
    errors,
    table: renderTable(`${title} (same host and members, same Secret changes; must agree)`, ['step', ...impls.map((i) => i.name)], rows),
  };
}
