/** Names the fleet server and the bench agree on. */

/** Where the seeded ConfigMaps and the kubeconfig Secrets live. */
export const BENCH_NAMESPACE = 'default';

/** The name of the i-th seeded ConfigMap of every member. */
export function objectName(i: number): string {
  return `obj-${i}`;
}

/** How many late joiners a namespaces fleet of `members` has: namespaces labelled as members only on `join`. */
export function joinersOf(members: number): number {
  return Math.max(1, Math.floor(members / 10));
}
