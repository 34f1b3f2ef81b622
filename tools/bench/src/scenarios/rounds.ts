/**
 * Rounds in which the implementations take turns against one fleet, in an order that rotates every round, so that
 * each implementation meets the fleet at every age. The fleet does not stay the same over a scenario: its in-memory
 * API servers run busier stretches in their first minute of watch traffic than later, so measuring one
 * implementation's windows back to back and then the next's gave whichever ran first the longer tail.
 */
import type { ImplSpec } from '../runner-process.js';

/** `items` starting at position `round` (modulo its length): round 0 as given, round 1 from the second, and so on. */
export function rotated<T>(items: readonly T[], round: number): T[] {
  if (items.length === 0) return [];
  const k = round % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/**
 * Calls `turn` for every implementation in every round, in rotated order. An implementation whose turn throws is
 * reported through `failed` and skipped in later rounds; the others go on.
 */
export async function takeTurns(
  impls: readonly ImplSpec[],
  rounds: number,
  turn: (impl: ImplSpec, round: number) => Promise<void>,
  failed: (impl: ImplSpec, err: unknown) => void,
): Promise<void> {
  const broken = new Set<string>();
  for (let round = 0; round < rounds; round++) {
    for (const impl of rotated(impls, round)) {
      if (broken.has(impl.name)) continue;
      try {
        await turn(impl, round);
      } catch (err) {
        broken.add(impl.name);
        failed(impl, err);
      }
    }
  }
}
