/**
 * kcp permission claims: an APIExport may claim resources it does not define (ConfigMaps, Events, another export's
 * resources), and each APIBinding accepts or rejects each claim. The export's virtual workspace then serves a claimed
 * resource, but shows a workspace's objects of it only when that workspace's binding accepted the claim. Both API
 * versions store claims as `{group, resource, …}` (v1alpha1 `all: true`, v1alpha2 `verbs` and a selector), and a
 * binding's acceptance as `state: Accepted` on its own copy in `spec.permissionClaims`; only those fields matter here.
 */
import type { Json } from './json.js';
import { objs, str } from './json.js';

/** `group/resource`, with "" for the core group. */
export const groupResourceKey = (group: string, resource: string): string => `${group}/${resource}`;

function claimKeys(claims: Json[]): string[] {
  return claims.flatMap((c) => {
    const resource = str(c, 'resource');
    return resource === undefined ? [] : [groupResourceKey(str(c, 'group') ?? '', resource)];
  });
}

/** The resources an APIExport claims. */
export function exportClaims(apiExport: unknown): Set<string> {
  return new Set(claimKeys(objs(apiExport, 'spec', 'permissionClaims')));
}

/** The claims of `claimed` that this binding accepted. */
export function acceptedClaims(binding: unknown, claimed: ReadonlySet<string>): Set<string> {
  const accepted = objs(binding, 'spec', 'permissionClaims').filter((c) => c['state'] === 'Accepted');
  return new Set(claimKeys(accepted).filter((k) => claimed.has(k)));
}

/** A claim as an APIExport of `version` writes it (all verbs, every object). */
export function exportClaim(version: 'v1alpha1' | 'v1alpha2', group: string, resource: string): Json {
  return version === 'v1alpha1' ? { group, resource, all: true } : { group, resource, verbs: ['*'] };
}

/** A binding's acceptance of a claim, as an APIBinding of `version` writes it. */
export function acceptedClaim(version: 'v1alpha1' | 'v1alpha2', group: string, resource: string): Json {
  return version === 'v1alpha1'
    ? { group, resource, all: true, state: 'Accepted' }
    : { group, resource, verbs: ['*'], selector: { matchAll: true }, state: 'Accepted' };
}
