/**
 * Service rules: a Service that needs a cluster IP gets one from the cluster's service range, and NodePort and
 * LoadBalancer Services get node ports (and a health-check port under externalTrafficPolicy Local); an update that
 * leaves them out keeps them, one that changes them is refused, and a taken or out-of-range value is refused as the
 * real allocators refuse it. The range is the one the real tier starts kube-apiserver with (10.0.0.0/24), with
 * 10.0.0.1 kept for the `kubernetes` Service as there.
 */
import { isDeepStrictEqual } from 'node:util';
import { isPlainObject } from '../patch/merge-patch.js';
import type { StoredObject } from '../../storage/types.js';
import { cloneJson, dns1123LabelErrors } from '@multicluster-runtime/apimachinery';
import { duplicate, forbiddenField, invalidValue, notSupported, required, type FieldError } from '../field-error.js';
import { PORT_RANGE_MESSAGE, portNameErrors, validPort } from './workloads.js';
import type { ResourceStrategy, StrategyContext } from '../resource-type.js';
import { struct } from '../builtin-go-defaults.js';

type Obj = Record<string, unknown>;

/** The service range: 10.0.0.0/24 without its network and broadcast addresses and 10.0.0.1. */
const SERVICE_RANGE = { prefix: '10.0.0.', first: 2, last: 254 };
const NODE_PORTS = { first: 30000, last: 32767 };

function specOf(svc: StoredObject): Obj {
  return isPlainObject(svc['spec']) ? svc['spec'] : {};
}

function typeOf(spec: Obj): string {
  return typeof spec['type'] === 'string' && spec['type'] !== '' ? spec['type'] : 'ClusterIP';
}

function needsClusterIP(spec: Obj): boolean {
  return typeOf(spec) !== 'ExternalName' && spec['clusterIP'] !== 'None';
}

function needsNodePorts(spec: Obj): boolean {
  const type = typeOf(spec);
  return type === 'NodePort' || (type === 'LoadBalancer' && spec['allocateLoadBalancerNodePorts'] !== false);
}

function needsHealthCheckPort(spec: Obj): boolean {
  return typeOf(spec) === 'LoadBalancer' && spec['externalTrafficPolicy'] === 'Local';
}

function portsOf(spec: Obj): Obj[] {
  return Array.isArray(spec['ports']) ? spec['ports'].filter(isPlainObject) : [];
}

function hasClusterIPs(spec: Obj): boolean {
  return Array.isArray(spec['clusterIPs']) && spec['clusterIPs'].length > 0;
}

function clusterIPOf(spec: Obj): string {
  return typeof spec['clusterIP'] === 'string' ? spec['clusterIP'] : '';
}

/** Whether an address is a host of the service range (10.0.0.1 included: a user may ask for it). */
function inServiceRange(ip: string): boolean {
  const host = ip.slice(SERVICE_RANGE.prefix.length);
  return ip.startsWith(SERVICE_RANGE.prefix) && /^[1-9][0-9]{0,2}$/.test(host) && Number(host) <= 254;
}

function isIPv4(ip: string): boolean {
  const parts = ip.split('.');
  return parts.length === 4 && parts.every((p) => /^(0|[1-9][0-9]{0,2})$/.test(p) && Number(p) <= 255);
}

/**
 * What the other Services of the cluster hold (cluster IPs and node ports, health-check ports included), and the
 * addresses IPAddress objects hold for anything but a Service. A Service's own IPAddress adds nothing the Services do
 * not: one whose Service let the address go is about to be removed (ip-address-controller.ts), and its address is free.
 */
function taken(ctx: StrategyContext, self: StoredObject): { ips: Set<string>; ports: Set<number> } {
  const ips = new Set<string>();
  const ports = new Set<number>();
  for (const address of ctx.objectsOf('ipaddresses.networking.k8s.io')) {
    const ref = isPlainObject(address['spec']) && isPlainObject(address['spec']['parentRef']) ? address['spec']['parentRef'] : {};
    if (ref['resource'] !== 'services' || (ref['group'] ?? '') !== '') ips.add(String(address.metadata.name));
  }
  for (const other of ctx.siblings()) {
    if (other.metadata.namespace === self.metadata.namespace && other.metadata.name === self.metadata.name) continue;
    const spec = specOf(other);
    if (needsClusterIP(spec) && clusterIPOf(spec) !== '') ips.add(clusterIPOf(spec));
    for (const port of portsOf(spec)) if (typeof port['nodePort'] === 'number' && port['nodePort'] > 0) ports.add(port['nodePort']);
    if (typeof spec['healthCheckNodePort'] === 'number' && spec['healthCheckNodePort'] > 0) ports.add(spec['healthCheckNodePort']);
  }
  return { ips, ports };
}

/** A random free value of [first, last], as the real allocators pick; undefined when all are taken. */
function pickFree(first: number, last: number, isTaken: (n: number) => boolean): number | undefined {
  const size = last - first + 1;
  const start = Math.floor(Math.random() * size);
  for (let i = 0; i < size; i++) {
    const candidate = first + ((start + i) % size);
    if (!isTaken(candidate)) return candidate;
  }
  return undefined;
}

function allocate(svc: StoredObject, ctx: StrategyContext): void {
  const spec = struct(svc, 'spec');
  // What Go's omitempty leaves out of the stored object.
  if (spec['clusterIP'] === '') delete spec['clusterIP'];
  const used = taken(ctx, svc);
  if (needsClusterIP(spec)) {
    if (clusterIPOf(spec) === '') {
      const host = pickFree(SERVICE_RANGE.first, SERVICE_RANGE.last, (h) => used.ips.has(`${SERVICE_RANGE.prefix}${h}`));
      // A full range is left for validation to report.
      if (host !== undefined) spec['clusterIP'] = `${SERVICE_RANGE.prefix}${host}`;
    }
  }
  defaultIPFamilies(spec);
  const ports = new Set(used.ports);
  for (const port of portsOf(spec)) if (typeof port['nodePort'] === 'number' && port['nodePort'] > 0) ports.add(port['nodePort']);
  if (needsNodePorts(spec)) {
    for (const port of portsOf(spec)) {
      if (typeof port['nodePort'] === 'number' && port['nodePort'] > 0) continue;
      const picked = pickFree(NODE_PORTS.first, NODE_PORTS.last, (n) => ports.has(n));
      if (picked === undefined) continue;
      port['nodePort'] = picked;
      ports.add(picked);
    }
  }
  if (needsHealthCheckPort(spec) && !(typeof spec['healthCheckNodePort'] === 'number' && spec['healthCheckNodePort'] > 0)) {
    const picked = pickFree(NODE_PORTS.first, NODE_PORTS.last, (n) => ports.has(n));
    if (picked !== undefined) spec['healthCheckNodePort'] = picked;
  }
}

/**
 * clusterIPs follows clusterIP, and the IP families are the cluster's (IPv4 only), except that a headless Service
 * without a selector requires both families, as the real server answers even in a single-stack cluster.
 */
function defaultIPFamilies(spec: Obj): void {
  if (typeOf(spec) === 'ExternalName') return;
  const ip = clusterIPOf(spec);
  if (ip !== '' && !hasClusterIPs(spec)) spec['clusterIPs'] = [ip];
  const headlessWithoutSelector = ip === 'None' && !(isPlainObject(spec['selector']) && Object.keys(spec['selector']).length > 0);
  if (spec['ipFamilyPolicy'] === undefined || spec['ipFamilyPolicy'] === '') {
    spec['ipFamilyPolicy'] = headlessWithoutSelector ? 'RequireDualStack' : 'SingleStack';
  }
  if (!(Array.isArray(spec['ipFamilies']) && spec['ipFamilies'].length > 0)) {
    spec['ipFamilies'] = spec['ipFamilyPolicy'] === 'SingleStack' ? ['IPv4'] : ['IPv4', 'IPv6'];
  }
}

/**
 * A type change drops what the new type does not use, unless the request changed it (the registry's
 * dropTypeDependentFields): a Service that becomes ExternalName loses its cluster IPs, families and internal traffic
 * policy; one that stops being NodePort or LoadBalancer its node ports and external traffic policy.
 */
function dropTypeDependentFields(spec: Obj, before: Obj): void {
  const unchanged = (key: string) => isDeepStrictEqual(spec[key], before[key]);
  if (typeOf(spec) === 'ExternalName' && typeOf(before) !== 'ExternalName') {
    for (const key of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy', 'internalTrafficPolicy'])
      if (unchanged(key)) delete spec[key];
  }
  if (needsNodePorts(before) && !needsNodePorts(spec)) {
    const previous = portsOf(before);
    for (const port of portsOf(spec)) {
      if (previous.some((p) => p['nodePort'] === port['nodePort'])) delete port['nodePort'];
    }
  }
  const external = (s: Obj) => typeOf(s) === 'NodePort' || typeOf(s) === 'LoadBalancer';
  if (external(before) && !external(spec) && unchanged('externalTrafficPolicy')) delete spec['externalTrafficPolicy'];
  if (needsHealthCheckPort(before) && !needsHealthCheckPort(spec) && unchanged('healthCheckNodePort')) delete spec['healthCheckNodePort'];
  if (typeOf(before) === 'LoadBalancer' && typeOf(spec) !== 'LoadBalancer') {
    for (const key of ['allocateLoadBalancerNodePorts', 'loadBalancerClass']) if (unchanged(key)) delete spec[key];
  }
}

/** An update that leaves out what was allocated keeps it (the registry's patchAllocatedValues). */
function keepAllocated(svc: StoredObject, old: StoredObject): void {
  const spec = struct(svc, 'spec');
  const before = specOf(old);
  dropTypeDependentFields(spec, before);
  if (needsClusterIP(before) && needsClusterIP(spec)) {
    if (clusterIPOf(spec) === '') {
      spec['clusterIP'] = before['clusterIP'];
      if (!hasClusterIPs(spec) && before['clusterIPs'] !== undefined) spec['clusterIPs'] = cloneJson(before['clusterIPs']);
    } else if (
      clusterIPOf(spec) !== clusterIPOf(before) &&
      hasClusterIPs(spec) &&
      isDeepStrictEqual(spec['clusterIPs'], before['clusterIPs'])
    ) {
      // A new clusterIP with the old clusterIPs: the request means the new one (validation then refuses the change).
      (spec['clusterIPs'] as unknown[])[0] = spec['clusterIP'];
    }
  }
  if (needsNodePorts(before) && needsNodePorts(spec)) {
    const previous = portsOf(before);
    for (const port of portsOf(spec)) {
      if (typeof port['nodePort'] === 'number' && port['nodePort'] > 0) continue;
      const same = previous.find((p) => p['port'] === port['port'] && (p['protocol'] ?? 'TCP') === (port['protocol'] ?? 'TCP'));
      if (same && typeof same['nodePort'] === 'number') port['nodePort'] = same['nodePort'];
    }
  }
  if (needsHealthCheckPort(before) && needsHealthCheckPort(spec) && !(Number(spec['healthCheckNodePort']) > 0)) {
    spec['healthCheckNodePort'] = before['healthCheckNodePort'];
  }
}

/**
 * The ports' own rules: names (required once there are two, DNS labels, unique), port and numeric target port in
 * range, a named target port an IANA service name, a known protocol, and no port twice for one protocol.
 */
function portErrors(ports: readonly Obj[]): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  const seen = new Set<string>();
  ports.forEach((port, i) => {
    const at = `spec.ports[${i}]`;
    const name = typeof port['name'] === 'string' ? port['name'] : '';
    if (name === '' && ports.length > 1) errs.push(required(`${at}.name`));
    else if (name !== '') {
      for (const message of dns1123LabelErrors(name)) errs.push(invalidValue(`${at}.name`, name, message));
      if (names.has(name)) errs.push(duplicate(`${at}.name`, name));
      names.add(name);
    }
    const protocol = typeof port['protocol'] === 'string' ? port['protocol'] : 'TCP';
    if (!['SCTP', 'TCP', 'UDP'].includes(protocol)) errs.push(notSupported(`${at}.protocol`, protocol, ['SCTP', 'TCP', 'UDP']));
    if (!validPort(port['port'])) errs.push(invalidValue(`${at}.port`, port['port'], PORT_RANGE_MESSAGE));
    const target = port['targetPort'];
    if (typeof target === 'string') {
      for (const message of portNameErrors(target)) errs.push(invalidValue(`${at}.targetPort`, target, message));
    } else if (!validPort(target)) errs.push(invalidValue(`${at}.targetPort`, target, PORT_RANGE_MESSAGE));
    const key = `${String(port['port'])}/${protocol}`;
    // The real server names the duplicate by the Go struct of its key (a port and a protocol, the rest zero).
    if (seen.has(key)) {
      const goKey = { Name: '', Protocol: protocol, AppProtocol: null, Port: port['port'], TargetPort: 0, NodePort: 0 };
      errs.push(duplicate(at, goKey));
    }
    seen.add(key);
  });
  return errs;
}

function validate(svc: StoredObject, old: StoredObject | undefined, ctx: StrategyContext): FieldError[] {
  const errs: FieldError[] = [];
  const spec = specOf(svc);
  const ip = clusterIPOf(spec);
  const used = taken(ctx, svc);
  if (typeOf(spec) === 'ExternalName') {
    if (ip !== '') errs.push(forbiddenField('spec.clusterIPs', 'may not be set for ExternalName services'));
    return errs;
  }
  if (needsClusterIP(spec) && portsOf(spec).length === 0) errs.push(required('spec.ports'));
  errs.push(...portErrors(portsOf(spec)));
  const before = old ? specOf(old) : undefined;
  if (before && needsClusterIP(before) && needsClusterIP(spec) && clusterIPOf(before) !== ip) {
    errs.push(invalidValue('spec.clusterIPs[0]', spec['clusterIPs'] ?? [ip], 'may not change once set'));
    return errs;
  }
  if (needsClusterIP(spec) && (!before || !needsClusterIP(before))) {
    if (ip === '') errs.push(invalidValue('spec.clusterIPs', [], 'failed to allocate IP: range is full'));
    else if (!isIPv4(ip))
      errs.push(invalidValue('spec.clusterIPs[0]', ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
    else if (!inServiceRange(ip)) {
      errs.push(
        invalidValue('spec.clusterIPs', [ip], `failed to allocate IP ${ip}: the provided network does not match the current range`),
      );
    } else if (used.ips.has(ip))
      errs.push(invalidValue('spec.clusterIPs', [ip], `failed to allocate IP ${ip}: provided IP is already allocated`));
  }
  portsOf(spec).forEach((port, i) => {
    const nodePort = port['nodePort'];
    if (typeof nodePort !== 'number' || nodePort === 0) return;
    const path = `spec.ports[${i}].nodePort`;
    if (!needsNodePorts(spec)) {
      errs.push(forbiddenField(path, `may not be used when \`type\` is '${typeOf(spec)}'`));
      return;
    }
    const keptFromBefore = before !== undefined && portsOf(before).some((p) => p['nodePort'] === nodePort);
    if (nodePort < NODE_PORTS.first || nodePort > NODE_PORTS.last) {
      errs.push(
        invalidValue(
          path,
          nodePort,
          `provided port is not in the valid range. The range of valid ports is ${NODE_PORTS.first}-${NODE_PORTS.last}`,
        ),
      );
    } else if (!keptFromBefore && used.ports.has(nodePort)) {
      errs.push(invalidValue(path, nodePort, 'provided port is already allocated'));
    }
  });
  return errs;
}

export const serviceStrategy: ResourceStrategy = {
  prepareForCreate(svc, ctx) {
    allocate(svc, ctx);
  },
  prepareForUpdate(svc, old, ctx) {
    keepAllocated(svc, old);
    allocate(svc, ctx);
  },
  validate,
};
