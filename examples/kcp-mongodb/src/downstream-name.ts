/**
 * Where a consumer's object lands downstream. Every workspace has a `default` namespace and reuses names, so the
 * downstream name carries a hash of (logical cluster, namespace, name): two workspaces never collide, and the name
 * stays a valid DNS label. Annotations record the origin, which is how downstream events find their way back.
 */
import { createHash } from 'node:crypto';

export const ORIGIN_CLUSTER = 'kcp-mongodb.example.com/origin-cluster';
export const ORIGIN_NAMESPACE = 'kcp-mongodb.example.com/origin-namespace';
export const ORIGIN_NAME = 'kcp-mongodb.example.com/origin-name';
export const MANAGED_LABEL = 'kcp-mongodb.example.com/managed';

export interface Origin {
  cluster: string;
  namespace: string;
  name: string;
}

export function downstreamName(origin: Origin): string {
  const hash = createHash('sha256').update(`${origin.cluster}/${origin.namespace}/${origin.name}`).digest('hex').slice(0, 10);
  return `${origin.name
    .slice(0, 52)
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/-+$/, '')}-${hash}`;
}

export function originOf(annotations: Record<string, string> | undefined): Origin | undefined {
  const cluster = annotations?.[ORIGIN_CLUSTER];
  const namespace = annotations?.[ORIGIN_NAMESPACE];
  const name = annotations?.[ORIGIN_NAME];
  return cluster && namespace !== undefined && name ? { cluster, namespace, name } : undefined;
}
