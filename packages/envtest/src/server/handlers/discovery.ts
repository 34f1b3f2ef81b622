/** Discovery documents (/api, /apis, /apis/<g>, per group-version resource lists), /version and /openapi/v2. */
import type { ServerResponse } from 'node:http';
import type { ResourceRegistry } from '../../api/resource-registry.js';
import { groupVersion } from '../../api/resource-type.js';
import { writeJson } from '../respond.js';
import type { ActionTable } from '../action-table.js';

export const VERSION_INFO = {
  major: '1',
  minor: '30',
  gitVersion: 'v1.30.0',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2024-04-17T00:00:00Z',
  goVersion: 'go1.22.2',
  compiler: 'gc',
  platform: 'linux/amd64',
} as const;

/** kube-openapi's exact media type; the `@v1.0` form clients ask for breaks kubectl if echoed back. */
export const OPENAPI_V2_CONTENT_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

export function writeCoreVersions(res: ServerResponse, serverAddress: string): void {
  writeJson(res, 200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] });
}

function groupDocument(name: string, versions: string[]): Record<string, unknown> {
  const list = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: list, preferredVersion: list[0] };
}

export function writeGroups(res: ServerResponse, registry: ResourceRegistry, cluster: string | undefined): void {
  const groups = registry.groups(cluster).map((g) => groupDocument(g.name, g.versions));
  writeJson(res, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups });
}

export function writeGroup(res: ServerResponse, registry: ResourceRegistry, cluster: string | undefined, group: string): void {
  const g = registry.groups(cluster).find((x) => x.name === group)!;
  writeJson(res, 200, { kind: 'APIGroup', apiVersion: 'v1', ...groupDocument(g.name, g.versions) });
}

export function writeResourceList(
  res: ServerResponse,
  registry: ResourceRegistry,
  cluster: string | undefined,
  group: string,
  version: string,
  actions: ActionTable,
): void {
  const resources: Record<string, unknown>[] = [];
  for (const t of registry.resourcesIn(cluster, group, version)) {
    const main: Record<string, unknown> = {
      name: t.resource,
      singularName: t.singular,
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: t.verbs,
    };
    if (t.shortNames?.length) main['shortNames'] = t.shortNames;
    if (t.categories?.length) main['categories'] = t.categories;
    resources.push(main);
    for (const sub of t.subresources)
      resources.push({
        name: `${t.resource}/${sub}`,
        singularName: '',
        namespaced: t.namespaced,
        ...(sub === 'scale' ? { group: 'autoscaling', version: 'v1', kind: 'Scale' } : { kind: t.kind }),
        verbs: sub === 'finalize' ? ['update'] : ['get', 'patch', 'update'],
      });
    for (const action of actions.of(t.group, t.resource)) {
      if (t.subresources.includes(action.subresource)) continue;
      const name = `${t.resource}/${action.subresource}`;
      resources.push({ name, singularName: '', namespaced: t.namespaced, kind: action.kind, verbs: ['create'] });
    }
  }
  writeJson(res, 200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersion(group, version), resources });
}

/** An empty body is a valid empty gnostic document; kubectl only needs the content type to be exact. */
export function writeOpenApiV2(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': OPENAPI_V2_CONTENT_TYPE, 'Cache-Control': 'no-cache, private', 'Content-Length': 0 });
  res.end();
}
