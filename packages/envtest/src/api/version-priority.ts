/**
 * Kubernetes' version ordering (apimachinery version.CompareKubeAwareVersionStrings): GA before beta before alpha,
 * higher numbers first, then anything that is not a Kubernetes version, alphabetically.
 */
const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

export function compareKubeVersions(a: string, b: string): number {
  const ma = KUBE_VERSION.exec(a);
  const mb = KUBE_VERSION.exec(b);
  if (!ma && !mb) return a < b ? -1 : a > b ? 1 : 0;
  if (!ma) return 1;
  if (!mb) return -1;
  const rank = (m: RegExpExecArray): number => (m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0);
  if (rank(ma) !== rank(mb)) return rank(mb) - rank(ma);
  if (Number(ma[1]) !== Number(mb[1])) return Number(mb[1]) - Number(ma[1]);
  return Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}

export function sortKubeVersions(versions: Iterable<string>): string[] {
  return [...versions].sort(compareKubeVersions);
}
