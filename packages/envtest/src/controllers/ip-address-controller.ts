/**
 * The IPAddress objects of kube-apiserver's cluster-IP allocator: every address a Service holds has one, named by the
 * address, labelled as the allocator labels it and pointing back at the Service; it goes when the Service lets the
 * address go (deleted, made headless or ExternalName). The real allocator writes the IPAddress before the Service;
 * store listeners must not write synchronously, so here it follows the Service's write at once, one revision later.
 * Not in logical-cluster mode: kcp's workspaces allocate no cluster IPs.
 */
import type { ApiState } from '../server/api-state.js';
import { createObject } from '../server/ops/create.js';
import { deleteObject } from '../server/ops/delete.js';
import { objectKey, type ObjectTarget } from '../server/object-target.js';
import type { ResourceType } from '../api/resource-type.js';
import { isPlainObject } from '../api/patch/merge-patch.js';
import type { StoredObject } from '../storage/types.js';

const SERVICES = 'services';

interface ParentRef {
  readonly namespace: string;
  readonly name: string;
}

export function startIpAddressController(state: ApiState): void {
  const type = state.registry.find('', 'networking.k8s.io', 'v1', 'ipaddresses');
  if (!type) return;
  const unsubscribe = state.store.subscribe(SERVICES, (e) => {
    if (e.key.cluster !== '') return;
    const parent: ParentRef = { namespace: e.key.namespace, name: e.key.name };
    const before = e.type === 'DELETED' ? clusterIPsOf(e.object) : e.prev ? clusterIPsOf(e.prev) : [];
    const after = e.type === 'DELETED' ? [] : clusterIPsOf(e.object);
    const taken = after.filter((ip) => !before.includes(ip));
    const released = before.filter((ip) => !after.includes(ip));
    if (taken.length > 0 || released.length > 0) state.schedule(() => sync(state, type, parent, taken, released), 0);
  });
  state.onDispose(unsubscribe);
}

function sync(state: ApiState, type: ResourceType, parent: ParentRef, taken: readonly string[], released: readonly string[]): void {
  const target = (name: string): ObjectTarget => ({ type, version: 'v1', cluster: '', namespace: undefined, name, subresource: undefined });
  for (const ip of released) {
    const address = state.store.get(objectKey(target(ip)));
    if (address && isParent(address, parent)) deleteObject(state, target(ip), { dryRun: false });
  }
  for (const ip of taken) {
    if (state.store.has(objectKey(target(ip)))) continue;
    createObject(state, { type, version: 'v1', cluster: '', namespace: undefined }, ipAddress(ip, parent), {
      dryRun: false,
      fieldManager: undefined,
    });
  }
}

function clusterIPsOf(svc: StoredObject): string[] {
  const spec = isPlainObject(svc['spec']) ? svc['spec'] : {};
  const ips = Array.isArray(spec['clusterIPs']) ? spec['clusterIPs'] : [];
  return ips.filter((ip): ip is string => typeof ip === 'string' && ip !== '' && ip !== 'None');
}

function isParent(address: StoredObject, parent: ParentRef): boolean {
  const spec = isPlainObject(address['spec']) ? address['spec'] : {};
  const ref = isPlainObject(spec['parentRef']) ? spec['parentRef'] : {};
  return ref['resource'] === SERVICES && ref['namespace'] === parent.namespace && ref['name'] === parent.name;
}

function ipAddress(ip: string, parent: ParentRef): StoredObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IPAddress',
    metadata: {
      name: ip,
      labels: {
        'ipaddress.kubernetes.io/ip-family': ip.includes(':') ? 'IPv6' : 'IPv4',
        'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io',
      },
    },
    spec: { parentRef: { resource: SERVICES, namespace: parent.namespace, name: parent.name } },
  };
}
