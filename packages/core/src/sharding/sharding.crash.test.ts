/**
 * Sharding when a replica crashes: two replicas run in this process and a third in a child process
 * (crash-replica.test-util.ts) against the same envtest host and member servers; the child is SIGKILLed, so its peer
 * Lease and fences stay until they expire. Checks that its clusters move to the survivors within the crash bound the
 * README states, that no cluster is left unowned, and that no survivor reconciles a cluster before the dead replica's
 * last reconcile of it ended and its fence expired (from both processes' reconcile logs).
 *
 * Node 20 cannot run TypeScript, so core's sources are transpiled (TypeScript's transpileModule, no type-checking)
 * into a temporary directory whose node_modules is this repository's, and the child runs them with plain `node`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import ts from 'typescript';
import { startApiServer, type ApiServer } from '@multicluster-runtime/envtest';
import { controllerManagedBy } from '../builder/builder.js';
import { newCluster, type KubeCluster } from '../cluster/cluster.js';
import { leaseKind, type Lease } from '../leaderelection/lease-elector.js';
import { parseMicroTime } from '../leaderelection/micro-time.js';
import { silentLogger } from '../log/logger.js';
import { configMap, configMapKind, TestFleetProvider } from '../manager/fleet.test-util.js';
import { newManager, type MultiClusterManager } from '../manager/manager.js';
import type { ReconcileContext, Request } from '../reconcile/types.js';
import type { CrashReplicaConfig, CrashReplicaEvent } from './crash-replica.test-util.js';
import { fenceLeaseName } from './fence.js';
import { leaseName } from './names.js';
import { resolveSharding, type ShardingTimings } from './options.js';
import { ownerOf, type Peer } from './rendezvous.js';
import { churn, overlappingReconciles, watchForDoubleOwnership, type ReconcileInterval } from './sharding.test-util.js';

const group = 'shard-crash';
/**
 * The test's short timings, or (SHARD_CRASH_TIMINGS=default, set by sharding.crash-defaults.test.ts) the defaults a
 * user gets, whose bound is 19 s + sync.
 */
const defaults = process.env['SHARD_CRASH_TIMINGS'] === 'default';
const timings: Required<ShardingTimings> = defaults
  ? resolveSharding({ groupName: group }, 'default').timings
  : {
      peerLeaseDurationMs: 5000,
      peerRenewIntervalMs: 200,
      // As long as the peer Lease: the crash bound is the larger of the two, not their sum (which would be 10 s).
      fenceLeaseDurationMs: 5000,
      fenceRenewDeadlineMs: 3000,
      fenceRetryPeriodMs: 200,
      recomputeIntervalMs: 1000,
    };
/** Engaging a cluster on its new owner (informers list and sync): tens of ms here, generous for two busy cores. */
const syncAllowanceMs = 3500;
/**
 * The README's crash bound: the dead peer expires (peerLeaseDurationMs after a survivor last saw its Lease change,
 * noticed at the next refresh, peerRenewIntervalMs) while its fences expire too (fenceLeaseDurationMs after the
 * survivors' peer listing first saw their last renewal, also every peerRenewIntervalMs); then the new owner takes the
 * fence at its next retry (fenceRetryPeriodMs) and engages (sync). max(5000, 5000) + 200 + 200 + 3500 = 8.9 s; adding
 * the two expiries instead would take more than 10 s.
 */
const crashBoundMs =
  Math.max(timings.peerLeaseDurationMs, timings.fenceLeaseDurationMs) +
  timings.peerRenewIntervalMs +
  timings.fenceRetryPeriodMs +
  syncAllowanceMs;

/** Wall-clock ms, comparable with the child's timestamps. */
const now = (): number => performance.timeOrigin + performance.now();

let host: ApiServer;
let members: ApiServer[] = [];
const names: string[] = [];
const tools: KubeCluster[] = [];
let hostTool: KubeCluster;
/** Core's sources transpiled to JavaScript, for the child. */
let outDir: string;

type Interval = ReconcileInterval;
const reconciles: Interval[] = [];

function kubeconfigOf(server: ApiServer): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig());
  return kc;
}

/** Writes every non-test source of packages/core/src as an ES module under `dir`, next to a node_modules link. */
function transpileCore(dir: string): void {
  const src = fileURLToPath(new URL('../', import.meta.url));
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [join(d, e.name)] : [],
    );
  for (const file of walk(src)) {
    const out = ts.transpileModule(readFileSync(file, 'utf8'), {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    });
    const target = join(dir, relative(src, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, out.outputText);
  }
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  symlinkSync(fileURLToPath(new URL('../../../../node_modules', import.meta.url)), join(dir, 'node_modules'));
}

/** The replica in the child process: what it logged, and how it ended. */
class ChildReplica {
  readonly process: ChildProcess;
  readonly intervals = new Map<number, Interval>();
  engaged: string[] = [];
  ready = false;
  stderr = '';
  /** When this process saw the child exit: an upper bound of when any of its reconciles ran. */
  exitedAt = Number.NaN;
  readonly exited: Promise<void>;

  constructor(
    readonly id: string,
    config: CrashReplicaConfig,
  ) {
    this.process = spawn(process.execPath, [join(outDir, 'sharding', 'crash-replica.test-util.js')], {
      cwd: outDir,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', SHARD_CRASH_REPLICA: JSON.stringify(config) },
    });
    this.process.stderr!.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-4000);
    });
    this.process.stdin!.on('error', () => {});
    createInterface({ input: this.process.stdout! }).on('line', (line) => {
      try {
        this.onEvent(JSON.parse(line) as CrashReplicaEvent);
      } catch {
        this.stderr += `\nnot a JSON line on stdout: ${line}`;
      }
    });
    this.exited = new Promise((resolve) =>
      this.process.once('exit', () => {
        this.exitedAt = now();
        this.engaged = [];
        resolve();
      }),
    );
  }

  private onEvent(e: CrashReplicaEvent): void {
    if (e.type === 'ready') this.ready = true;
    else if (e.type === 'engaged') this.engaged = e.clusters;
    else if (e.type === 'start') this.intervals.set(e.seq, { replica: this.id, cluster: e.cluster, start: e.t, end: Number.NaN });
    else {
      const interval = this.intervals.get(e.seq);
      if (interval) interval.end = e.t;
    }
  }

  get alive(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  /** Its reconciles; one still open when it died ends, at the latest, when it exited. */
  reconciles(): Interval[] {
    return [...this.intervals.values()].map((r) => (Number.isNaN(r.end) && !this.alive ? { ...r, end: this.exitedAt } : r));
  }

  /** SIGKILL, so nothing of the replica's shutdown runs. */
  async kill(): Promise<void> {
    if (this.alive) this.process.kill('SIGKILL');
    await this.exited;
  }
}

interface Replica {
  id: string;
  mgr: MultiClusterManager;
  stop: AbortController;
  done: Promise<void>;
}
const replicas: Replica[] = [];
let child: ChildReplica | undefined;

async function startReplica(id: string): Promise<Replica> {
  const provider = new TestFleetProvider();
  const mgr = newManager(kubeconfigOf(host), provider, {
    logger: silentLogger,
    gracefulShutdownTimeoutMs: 10_000,
    sharding: { groupName: group, namespace: 'default', id, timings },
  });
  controllerManagedBy(mgr)
    .named('record')
    .for(configMapKind)
    .complete(async (req: Request, ctx: ReconcileContext) => {
      const entry: Interval = { replica: id, cluster: req.clusterName, start: now(), end: Number.NaN };
      reconciles.push(entry);
      try {
        const cluster = await mgr.getCluster(req.clusterName, ctx.signal);
        await cluster.client.get(configMapKind, req, { signal: ctx.signal });
      } finally {
        entry.end = now();
      }
    });
  const stop = new AbortController();
  const r: Replica = { id, mgr, stop, done: mgr.start(stop.signal) };
  replicas.push(r);
  await Promise.all(names.map((name, i) => provider.add(name, kubeconfigOf(members[i % members.length]!))));
  return r;
}

/** cluster → replicas that have it engaged (the child as it last reported, and nothing once it died). */
function engagedBy(): Map<string, string[]> {
  const m = new Map<string, string[]>(names.map((n) => [n, []]));
  for (const r of replicas) for (const c of r.mgr.engagedClusters()) m.get(c)?.push(r.id);
  if (child?.alive) for (const c of child.engaged) m.get(c)?.push(child.id);
  return m;
}

function assignment(peers: Peer[]): Map<string, string[]> {
  return new Map(names.map((n) => [n, [ownerOf(n, peers)!.id]]));
}

/** Every reconcile of both processes. */
function allReconciles(): Interval[] {
  return [...reconciles, ...(child?.reconciles() ?? [])];
}

async function leaseOf(name: string): Promise<Lease | undefined> {
  try {
    return await hostTool.apiReader.get<Lease>(leaseKind, { namespace: 'default', name });
  } catch {
    return undefined;
  }
}

async function fenceHolders(): Promise<[string, string][]> {
  return Promise.all(
    names.map(async (n) => [n, (await leaseOf(fenceLeaseName(group, n)))?.spec?.holderIdentity ?? ''] as [string, string]),
  );
}

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'shard-crash-'));
  transpileCore(outDir);
  host = await startApiServer();
  members = await Promise.all(Array.from({ length: 4 }, () => startApiServer()));
  // Two cluster names per member server: names are what is sharded.
  for (let i = 0; i < 2 * members.length; i++) names.push(`member-${i}`);
  for (let i = 0; i < members.length; i++) {
    const t = newCluster(kubeconfigOf(members[i]!), { logger: silentLogger });
    tools.push(t);
    await t.client.create(configMap('churn'));
  }
  hostTool = newCluster(kubeconfigOf(host), { logger: silentLogger });
});

// The child must never outlive a failed test.
afterEach(async () => {
  await child?.kill();
});

afterAll(async () => {
  await child?.kill();
  for (const r of replicas) r.stop.abort();
  await Promise.allSettled(replicas.map((r) => r.done));
  await Promise.all([...tools, hostTool].map((t) => t?.close()));
  await Promise.all([host, ...members].map((s) => s?.close()));
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe(`sharding when a replica crashes (${defaults ? 'default timings' : 'short timings'})`, () => {
  const poll = { timeout: defaults ? 30_000 : 10_000, interval: 20 };

  it(
    "moves a SIGKILLed replica's clusters to the survivors within the crash bound, after its fences expired, leaving none unowned",
    async () => {
      const survivors: Peer[] = [
        { id: 'replica-a', weight: 1 },
        { id: 'replica-b', weight: 1 },
      ];
      // A child ID that wins at least two of the clusters against the two survivors.
      const childId = ['replica-x', 'replica-y', 'replica-z', 'replica-w'].find(
        (id) => names.filter((n) => ownerOf(n, [...survivors, { id, weight: 1 }])!.id === id).length >= 2,
      )!;
      const before = assignment([...survivors, { id: childId, weight: 1 }]);
      const after = assignment(survivors);
      const held = names.filter((n) => before.get(n)![0] === childId);

      const guard = watchForDoubleOwnership(engagedBy);
      const writes = churn(tools);
      let killedAt = Number.NaN;
      let movedAt = Number.NaN;
      try {
        child = new ChildReplica(childId, {
          group,
          id: childId,
          timings,
          host: host.kubeconfig(),
          members: names.map((name, i) => ({ name, kubeconfig: members[i % members.length]!.kubeconfig() })),
        });
        await Promise.all(survivors.map((p) => startReplica(p.id)));
        // A child that died on its own shows its stderr here.
        await expect.poll(() => (child!.alive ? child!.ready : `exited: ${child!.stderr}`), { timeout: 20_000, interval: 20 }).toBe(true);
        await expect.poll(engagedBy, poll).toEqual(before);
        await expect.poll(fenceHolders, poll).toEqual([...before].map(([c, [o]]) => [c, o]));
        // The child reconciles each of its clusters (the write stream keeps touching every one).
        await expect.poll(() => held.filter((n) => !child!.reconciles().some((r) => r.cluster === n)), poll).toEqual([]);

        killedAt = now();
        await child.kill();
        // Nothing of its shutdown ran: its peer Lease and its fences are still there, with its last renewals.
        expect(await leaseOf(leaseName(`${group}-peer`, childId))).toBeDefined();
        const fences = await Promise.all(held.map((n) => leaseOf(fenceLeaseName(group, n))));
        expect(fences.map((f) => f?.spec?.holderIdentity)).toEqual(held.map(() => childId));
        const lastRenewal = new Map(held.map((n, i) => [n, parseMicroTime(fences[i]!.spec!.renewTime)!.getTime()]));

        await expect.poll(engagedBy, { timeout: crashBoundMs + 10_000, interval: 20 }).toEqual(after);
        movedAt = now();
        await expect.poll(fenceHolders, poll).toEqual([...after].map(([c, [o]]) => [c, o]));
        // Each moved cluster is reconciled by its new owner.
        const firstAfter = (n: string) =>
          reconciles
            .filter((r) => r.cluster === n && r.start > killedAt)
            .map((r) => r.start)
            .sort((a, b) => a - b)[0];
        await expect.poll(() => held.filter((n) => firstAfter(n) === undefined), poll).toEqual([]);

        // No survivor reconciled a moved cluster before the dead replica's last reconcile of it ended…
        for (const n of held) {
          const lastEnd = Math.max(
            ...child
              .reconciles()
              .filter((r) => r.cluster === n)
              .map((r) => r.end),
          );
          expect(firstAfter(n)!, n).toBeGreaterThan(lastEnd);
          // …nor before its fence expired: fenceLeaseDurationMs after the dead replica's last renewal of it (both
          // wall clocks of this machine; the taker counts from when it saw that renewal, which is later).
          expect(firstAfter(n)! - lastRenewal.get(n)!, n).toBeGreaterThanOrEqual(timings.fenceLeaseDurationMs);
        }
      } finally {
        await child?.kill();
        await writes.stop();
      }
      expect(guard.stop()).toEqual([]);
      expect(overlappingReconciles(allReconciles(), names)).toEqual([]);
      expect(held.length).toBeGreaterThanOrEqual(2);
      expect(movedAt - killedAt).toBeLessThan(crashBoundMs);
      console.log(
        `[sharding] ${defaults ? 'default' : 'short'} timings: a SIGKILLed replica's clusters moved after ${((movedAt - killedAt) / 1000).toFixed(1)} s (bound ${(crashBoundMs / 1000).toFixed(1)} s with ${syncAllowanceMs / 1000} s for sync)`,
      );
      // The dead replica's peer Lease is deleted by a survivor once it has not changed for twice its duration.
      await expect
        .poll(() => leaseOf(leaseName(`${group}-peer`, childId)), { timeout: 2 * timings.peerLeaseDurationMs + 10_000, interval: 100 })
        .toBeUndefined();
      // Not before twice the Lease duration after its last renewal (at most one renew interval before the kill).
      expect(now() - killedAt).toBeGreaterThanOrEqual(2 * timings.peerLeaseDurationMs - timings.peerRenewIntervalMs);
    },
    defaults ? 240_000 : undefined,
  );
});
