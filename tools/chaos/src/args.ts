/** Command-line options of `npm run chaos`. */
import { parseArgs } from 'node:util';

export interface ChaosArgs {
  /** Seconds of faults before the settle window. */
  durationSec: number;
  /** Member API servers (the host is one more). */
  members: number;
  /** Seed of the adversary's and the writer's choices: the same seed replays the same schedule of faults. */
  seed: number;
  /** Seconds the fleet gets, after the faults stop, to converge before the checker looks. */
  settleSec: number;
  /** Replicas of the manager, sharding the members with leader election on; above 1 the host's API fails too. */
  replicas: number;
  /** For the tool's own test: a controller that loses work, so the checker must fail. */
  sabotage: boolean;
}

export const USAGE = `Usage: npm run chaos -- [--quick] [--duration SECONDS] [--members N] [--replicas N] [--seed N]

Runs a controller that keeps a derived ConfigMap per source ConfigMap in every member of a fleet of in-memory API
servers, while an adversary restarts servers (state kept, and state lost with a new address), drops watches,
answers 410 Gone, slows responses, makes members leave and join, rotates their kubeconfigs, and makes the
reconciler throw. After a settle window a checker reads every member: every derived object must match its source,
and heap and open handles must come back. No reconcile may start for a disengaged member, and with replicas no
member may be reconciled by two replicas at once. Prints what was injected and what was found; exits 1 on any loss.

  --quick            60 s of faults, 8 members (what CI runs)
  --duration SECONDS seconds of faults (default 600)
  --members N        member API servers (default 20)
  --replicas N       managers sharding the members, with leader election; the host's API (their Leases) also
                     goes down and slows down (default 1)
  --seed N           replays a schedule (default: from the clock; printed)
  --settle SECONDS   time to converge after the faults stop (default 60)
  -h, --help         this text`;

export class ChaosArgsError extends Error {
  override readonly name = 'ChaosArgsError';
}

function positiveInt(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new ChaosArgsError(`${flag} takes a positive integer, got ${JSON.stringify(value)}`);
  return n;
}

/** undefined for --help. */
export function parseChaosArgs(argv: string[]): ChaosArgs | undefined {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        quick: { type: 'boolean', default: false },
        duration: { type: 'string' },
        members: { type: 'string' },
        replicas: { type: 'string' },
        seed: { type: 'string' },
        settle: { type: 'string' },
        sabotage: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    throw new ChaosArgsError((err as Error).message);
  }
  const v = parsed.values;
  if (v.help) return undefined;
  return {
    durationSec: positiveInt('--duration', v.duration, v.quick ? 60 : 600),
    members: positiveInt('--members', v.members, v.quick ? 8 : 20),
    seed: v.seed === undefined ? Date.now() % 1_000_000 : positiveInt('--seed', v.seed, 1),
    settleSec: positiveInt('--settle', v.settle, 60),
    replicas: positiveInt('--replicas', v.replicas, 1),
    sabotage: v.sabotage,
  };
}
