/**
 * Rounds in which the implementations take turns against one fleet, in an order that rotates every round, so that
 * each implementation meets the fleet at every age: measuring one implementation's windows back to back and then the
 * next's gave whichever ran first the longer tail. The scenario's very first turn is slow whoever takes it (warming
 * the fleet beforehand did not change that), which no order spreads: a scenario can discard it (`discardFirstTurn`).
 *
 * Each implementation's runner is started once and kept, so it is measured warm (a runner started afresh for every
 * turn spends its first seconds compiling, which shows in its CPU per event); a turn engages the members in it as new
 * clusters and removes them afterwards, so only the runner whose turn it is watches the fleet.
 */
import type { FleetProcess } from '../fleet/fleet-process.js';
import type { ImplSpec, RunnerProcess } from '../runner-process.js';
import { disengageMembers, engageWithInitialReconciles, startFileRunner } from './engaged-runner.js';
import { errorMessage, type ScenarioContext, type ScenarioResult } from './scenario.js';

/** `items` starting at position `round` (modulo its length): round 0 as given, round 1 from the second, and so on. */
export function rotated<T>(items: readonly T[], round: number): T[] {
  if (items.length === 0) return [];
  const k = round % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/** One turn of a scenario: whose, in which round, and whether it is that implementation's first. */
export interface TurnSlot<T> {
  item: T;
  round: number;
  first: boolean;
}

/**
 * The turns of a scenario in order: round 0 in the given order, each later round rotated by one, and, when
 * `discardFirst`, a turn of the first implementation as round -1 before them all.
 */
export function turnOrder<T>(items: readonly T[], rounds: number, discardFirst = false): TurnSlot<T>[] {
  const turns: TurnSlot<T>[] = [];
  const seen = new Set<T>();
  const add = (item: T, round: number): void => {
    turns.push({ item, round, first: !seen.has(item) });
    seen.add(item);
  };
  if (discardFirst && items.length > 0) add(items[0] as T, -1);
  for (let round = 0; round < rounds; round++) for (const item of rotated(items, round)) add(item, round);
  return turns;
}

/**
 * What a turn is given: the runner, with the fleet's members 0..clusters-1 engaged and their objects reconciled, and
 * whether it is the implementation's first turn (its runner was started for it and has compiled little of its code).
 */
export type Turn = (runner: RunnerProcess, impl: ImplSpec, round: number, first: boolean) => Promise<void>;

/** Where the turns run and where a failed one is reported. */
export interface Rounds {
  fleet: FleetProcess;
  ctx: ScenarioContext;
  rounds: number;
  /** Members engaged for each turn. */
  clusters: number;
  /** A failed implementation is added here, with its configuration named by `clusters`. */
  errors: ScenarioResult['errors'];
  /** The scenario and configuration, for progress lines: `throughput 10 clusters`. */
  what: string;
  /**
   * Before round 0, the first implementation takes one turn more, as round -1, for the scenario to leave out: the
   * scenario's first turn is slow whoever takes it, and rotation cannot spread that.
   */
  discardFirstTurn?: boolean;
}

/**
 * Runs `turn` for every implementation in every round, in rotated order, each in its own kept runner with the members
 * engaged for the turn. Every implementation's first turn is in round 0 (the first implementation's in round -1 when
 * the first turn is discarded). An implementation whose turn fails is reported (in `errors` and a progress line),
 * its runner stopped, and skipped in later rounds; the others go on.
 */
export async function takeTurns(rounds: Rounds, turn: Turn): Promise<void> {
  const { fleet, ctx, clusters } = rounds;
  const runners = new Map<string, { runner: RunnerProcess; dir: string }>();
  const broken = new Set<string>();
  try {
    for (const { item: impl, round, first } of turnOrder(ctx.impls, rounds.rounds, rounds.discardFirstTurn)) {
      if (broken.has(impl.name)) continue;
      try {
        let kept = runners.get(impl.name);
        if (!kept) {
          kept = await startFileRunner(fleet, impl, impl.name);
          runners.set(impl.name, kept);
        }
        const { runner, dir } = kept;
        const ids = await engageWithInitialReconciles(fleet, runner, dir, clusters, `r${round}-`);
        await turn(runner, impl, round, first);
        if (round === rounds.rounds - 1) {
          // Its last turn: stopping the runner ends its watches at once, where removing the files waits for the
          // provider to see them go.
          runners.delete(impl.name);
          await runner.stop();
        } else {
          await disengageMembers(fleet, runner, dir, ids);
        }
      } catch (err) {
        broken.add(impl.name);
        await runners.get(impl.name)?.runner.stop();
        runners.delete(impl.name);
        rounds.errors.push({ impl: impl.name, config: `clusters=${clusters}`, message: errorMessage(err) });
        ctx.progress(`${rounds.what} ${impl.name} failed: ${errorMessage(err)}`);
      }
    }
  } finally {
    await Promise.all([...runners.values()].map(({ runner }) => runner.stop()));
  }
}
