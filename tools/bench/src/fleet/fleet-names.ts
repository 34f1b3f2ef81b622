/** Names the fleet server and the bench agree on. */

/** Where the seeded ConfigMaps and the kubeconfig Secrets live. */
export const BENCH_NAMESPACE = 'default';

/** The name of the i-th seeded ConfigMap of every member. */
export function objectName(i: number): string {
  return `obj-${i}`;
}
