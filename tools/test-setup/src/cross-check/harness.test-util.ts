/**
 * The step machinery of a cross-check: an upstream Go provider (tools/go-upstream-providers) and this repository's
 * provider watch one fleet, each with the same ConfigMap controller, and a scenario changes the fleet step by step.
 * After each step both must have engaged the expected members and reconciled every ConfigMap there to its current
 * state, and each must have reconciled exactly what the step changed. A difference is a bug in a fake server or in
 * a provider, unless the step names it as an upstream behaviour this repository departs from on purpose.
 *
 * Settling is awaited, never slept for: every step ends by bumping a barrier ConfigMap in every member that should
 * be engaged, and waits until both sides engaged (and engaged anew) what they should and reconciled every ConfigMap
 * of those members at its current resourceVersion. That a member stayed engaged is checked over the step's history;
 * a side that re-engages it later than that shows it in the next step's check.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { ApiClient, DiscoveryRESTMapper, Transport } from '@multicluster-runtime/core/client';
import { isNotFound } from '@multicluster-runtime/core';
import { afterEach, beforeEach, expect } from 'vitest';
import { Observation, canonicalJson, type Seen } from './observation.test-util.js';
import type { TsSide } from './ts-side.test-util.js';
import type { UpstreamProviders } from './upstream-providers.test-util.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };

/** A fleet member: the cluster name both providers engage it under, and an admin client of its API server. */
export interface Member {
  readonly name: string;
  readonly client: ApiClient;
  /**
   * The one namespace that holds the member's objects, where a member is a namespace of a shared server (a
   * namespace provider's); the barrier goes there. Default: every namespace, with the barrier in `default`.
   */
  readonly namespace?: string;
}

/**
 * Registers hooks in the calling suite that skip its remaining tests once one failed: a cross-check's steps build on
 * each other, so after a failure the rest would only fail for the same reason.
 */
export function skipAfterFailure(): void {
  let broken = false;
  beforeEach((ctx) => {
    if (broken) ctx.skip('an earlier step failed');
  });
  afterEach((ctx) => {
    if (ctx.task.result?.state === 'fail') broken = true;
  });
}

/** The two sides of one cross-check and its step runner; `go` and `ts` are set when the scenario starts them. */
export interface CrossCheckSides {
  readonly goObs: Observation;
  readonly tsObs: Observation;
  readonly check: CrossCheck;
  go: UpstreamProviders | undefined;
  ts: TsSide | undefined;
  /** Stops both sides (before the servers they watch go). */
  stop(): Promise<void>;
}

/** Sets up a cross-check in the calling suite (its steps skipped after a failed one); `settleMs` as for CrossCheck. */
export function crossCheckSides(settleMs: number): CrossCheckSides {
  const goObs = new Observation('go');
  const tsObs = new Observation('ts');
  const sides: CrossCheckSides = {
    goObs,
    tsObs,
    check: new CrossCheck(goObs, tsObs, settleMs, { go: () => sides.go?.logTail(60) ?? '', ts: () => sides.ts?.logTail(40) ?? '' }),
    go: undefined,
    ts: undefined,
    stop: async () => void (await Promise.all([sides.go?.stop(), sides.ts?.stop()])),
  };
  skipAfterFailure();
  return sides;
}

/** A client of the API server `kubeconfig` reaches, for a Member; `close` ends its connections. */
export function adminClient(kubeconfig: string): { client: ApiClient; close: () => Promise<void> } {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfig);
  const transport = Transport.forConfig(kc);
  return { client: new ApiClient(transport, new DiscoveryRESTMapper(transport)), close: () => transport.close() };
}

/** What must hold after a step. */
export interface StepExpectation {
  /** The members engaged afterwards (by both sides, unless `goEngaged` is given). */
  readonly engaged: readonly Member[];
  /**
   * The members upstream has engaged afterwards where it differs on purpose (each difference is listed in the
   * package README's "Differences from upstream" with the step that shows it).
   */
  readonly goEngaged?: readonly Member[];
  /** Objects (`<cluster>|<namespace>/<name>`) upstream is known not to see deleted in this step; kept at their last state. */
  readonly goDropsDeletionOf?: readonly string[];
  /**
   * Members (names) engaged before and after the step that are engaged anew in it (a rotated kubeconfig): each side
   * must have ended the old engagement and begun a new one, and reconciled all their objects again. Every other
   * member engaged before and after must have stayed engaged throughout.
   */
  readonly reengaged?: readonly string[];
  /** The members upstream engages anew where it differs on purpose (default: `reengaged`). */
  readonly goReengaged?: readonly string[];
  /**
   * Members (names) upstream must have lost in this step (a known upstream bug, listed in the README): the old
   * engagement ended and every engagement begun in the step ended too. Whether the replacement engaged before it was
   * lost is a race in upstream (its cache may or may not have synced first), so either is accepted; waiting for every
   * end, rather than only for the member's absence, keeps the bug's tail out of the next step.
   */
  readonly goLost?: readonly string[];
}

/** One side's expectations carried from step to step. */
class Side {
  lastState: Record<string, Seen> = {};
  lastEngaged: string[] = [];
  /** Objects this side keeps after their deletion (goDropsDeletionOf), at the state it last saw. */
  readonly stale = new Map<string, Seen>();
  /** Where the observation's history stood when the step began. */
  historyMark = 0;

  constructor(
    readonly observation: Observation,
    readonly logTail: () => string,
  ) {}
}

const sortKeys = (state: Record<string, Seen>): Record<string, Seen> =>
  Object.fromEntries(Object.entries(state).sort(([x], [y]) => x.localeCompare(y)));

const present = (state: Record<string, Seen>): Record<string, Seen> => Object.fromEntries(Object.entries(state).filter(([, s]) => s.found));

const clusterOf = (id: string): string => id.split('|')[0]!;

/** What a step must have changed: every object of a newly engaged cluster, every changed or deleted object. */
function expectedChanges(before: Record<string, Seen>, after: Record<string, Seen>, engaged: readonly string[]): string[] {
  const keys = new Set<string>();
  for (const [k, s] of Object.entries(after)) if (canonicalJson(before[k]) !== canonicalJson(s)) keys.add(k);
  for (const k of Object.keys(before)) if (!(k in after) && engaged.includes(clusterOf(k))) keys.add(k);
  return [...keys].sort();
}

/** Every ConfigMap of these members as their servers have it now, as the controllers should have last seen it. */
async function serverState(members: readonly Member[]): Promise<Record<string, Seen>> {
  const out: Record<string, Seen> = {};
  for (const m of [...members].sort((x, y) => x.name.localeCompare(y.name))) {
    const items = (await m.client.list(CONFIGMAP, m.namespace === undefined ? {} : { namespace: m.namespace })).items.sort((x, y) =>
      `${x.metadata.namespace}/${x.metadata.name}`.localeCompare(`${y.metadata.namespace}/${y.metadata.name}`),
    );
    for (const cm of items) {
      out[`${m.name}|${cm.metadata.namespace}/${cm.metadata.name}`] = {
        found: true,
        resourceVersion: cm.metadata.resourceVersion!,
        content: (cm as { data?: unknown }).data ?? null,
      };
    }
  }
  return out;
}

export class CrossCheck {
  private readonly go: Side;
  private readonly ts: Side;
  private stepNo = 0;

  /**
   * `settleMs`: how long a step may take to settle. `logs` explain a side that did not settle (the Go program's
   * stderr, the manager's log).
   */
  constructor(
    go: Observation,
    ts: Observation,
    private readonly settleMs: number,
    logs: { go: () => string; ts: () => string },
  ) {
    this.go = new Side(go, logs.go);
    this.ts = new Side(ts, logs.ts);
  }

  /**
   * Runs `act`, bumps the barrier ConfigMap (`barrier`) in every member that should now be engaged, waits
   * until both sides settled as `expect` says, and compares what each reconciled anew with what changed.
   */
  async step(act: () => Promise<void>, expectation: StepExpectation): Promise<void> {
    const goMembers = expectation.goEngaged ?? expectation.engaged;
    for (const id of expectation.goDropsDeletionOf ?? []) this.go.stale.set(id, this.go.lastState[id]!);
    for (const side of [this.go, this.ts]) {
      side.observation.mark();
      side.historyMark = side.observation.history.length;
    }
    await act();
    this.stepNo++;
    const all = new Map([...expectation.engaged, ...goMembers].map((m) => [m.name, m]));
    for (const m of all.values()) await bumpBarrier(m.client, m.namespace ?? 'default', this.stepNo);

    const want = { go: goMembers.map((m) => m.name).sort(), ts: expectation.engaged.map((m) => m.name).sort() };
    for (const id of this.go.stale.keys()) if (!want.go.includes(clusterOf(id))) this.go.stale.delete(id);
    // A server may still be writing on its own (a fake kcp's labeller bumps resourceVersions): compare with the
    // servers' state as it is at each check.
    let server: Record<string, Seen> = {};
    const expected = (side: Side, engaged: string[]): Record<string, Seen> => {
      const own = Object.fromEntries(Object.entries(server).filter(([id]) => engaged.includes(clusterOf(id))));
      return sortKeys({ ...own, ...Object.fromEntries(side.stale) });
    };
    const reengaged = { ts: expectation.reengaged ?? [], go: expectation.goReengaged ?? expectation.reengaged ?? [] };
    /** Each member to engage anew had an engagement end and one begin since the step began (in either order: see Observation.engage). */
    const engagedAnew = (side: Side, anew: readonly string[]): boolean => {
      const history = side.observation.history.slice(side.historyMark);
      return anew.every((c) => history.includes(`-${c}`) && history.includes(`+${c}`));
    };
    /** Each member upstream must lose had its old engagement end, and each engagement begun since end as well. */
    const lost = (side: Side): boolean => {
      const history = side.observation.history.slice(side.historyMark);
      const count = (h: string) => history.filter((x) => x === h).length;
      return (expectation.goLost ?? []).every((c) => count(`-${c}`) === count(`+${c}`) + 1);
    };
    const converged = (side: Side, engaged: string[]): boolean =>
      JSON.stringify([...side.observation.engaged].sort()) === JSON.stringify(engaged) &&
      engagedAnew(side, side === this.go ? reengaged.go : reengaged.ts) &&
      (side === this.ts || lost(side)) &&
      canonicalJson(present(side.observation.state())) === canonicalJson(expected(side, engaged));
    const explain = (side: Side, engaged: string[]): string =>
      [
        `${side.observation.name}: engaged ${JSON.stringify([...side.observation.engaged].sort())}, want ${JSON.stringify(engaged)}`,
        `state ${JSON.stringify(present(side.observation.state()))}`,
        `want  ${JSON.stringify(expected(side, engaged))}`,
        `${side.observation.name} log:\n${side.logTail()}`,
      ].join('\n');
    const deadline = Date.now() + this.settleMs;
    for (;;) {
      server = await serverState([...all.values()]);
      if (converged(this.go, want.go) && converged(this.ts, want.ts)) break;
      for (const side of [this.go, this.ts])
        if (side.observation.failure) throw new Error(`${side.observation.name}: ${side.observation.failure}`);
      if (Date.now() > deadline) {
        const late = (
          [
            [this.go, want.go],
            [this.ts, want.ts],
          ] as const
        ).filter(([side, engaged]) => !converged(side, engaged));
        throw new Error(late.map(([side, engaged]) => explain(side, engaged)).join('\n\n'));
      }
      await Promise.race([this.go.observation.changes(250), this.ts.observation.changes(250)]);
    }

    for (const [side, engaged, anew] of [
      [this.ts, want.ts, reengaged.ts],
      [this.go, want.go, reengaged.go],
    ] as const) {
      const stayed = engaged.filter((c) => side.lastEngaged.includes(c));
      const history = side.observation.history.slice(side.historyMark);
      const engagements = Object.fromEntries(stayed.map((c) => [c, history.filter((h) => h.slice(1) === c).sort()]));
      expect(engagements, `members ${side.observation.name} kept engaged (or engaged anew) in this step`).toEqual(
        Object.fromEntries(stayed.map((c) => [c, anew.includes(c) ? ['+' + c, '-' + c] : []])),
      );
      const after = expected(side, engaged);
      const newlyEngaged = engaged.filter((c) => !side.lastEngaged.includes(c) || anew.includes(c));
      const before = Object.fromEntries(Object.entries(side.lastState).filter(([id]) => !newlyEngaged.includes(clusterOf(id))));
      const dropped = side === this.go ? (expectation.goDropsDeletionOf ?? []) : [];
      const changes = expectedChanges(before, after, engaged).filter((id) => !dropped.includes(id));
      expect(side.observation.changed(), `what ${side.observation.name} reconciled anew`).toEqual(changes);
      side.lastState = after;
      side.lastEngaged = engaged;
    }
  }
}

async function bumpBarrier(client: ApiClient, namespace: string, stepNo: number): Promise<void> {
  const data = { step: String(stepNo) };
  try {
    await client.patch(CONFIGMAP, { namespace, name: 'barrier' }, { type: 'merge', body: { data } });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await client.create({ ...CONFIGMAP, metadata: { name: 'barrier', namespace }, data });
  }
}
