/** The columns kube-apiserver's printers give the built-ins, so `kubectl get` looks as it does against a cluster. */
import type { TableColumn } from './resource-type.js';

const count = (v: unknown): number => (v && typeof v === 'object' ? Object.keys(v).length : 0);
const field = (obj: Record<string, unknown>, ...path: string[]): unknown =>
  path.reduce<unknown>((cur, k) => (cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[k] : undefined), obj);

export const AGE: TableColumn = { name: 'Age', type: 'date', value: (o) => field(o, 'metadata', 'creationTimestamp') };

export const CONFIGMAP_COLUMNS: readonly TableColumn[] = [
  { name: 'Data', type: 'integer', value: (o) => count(o['data']) + count(o['binaryData']) },
  AGE,
];
export const SECRET_COLUMNS: readonly TableColumn[] = [
  { name: 'Type', type: 'string', value: (o) => o['type'] },
  { name: 'Data', type: 'integer', value: (o) => count(o['data']) },
  AGE,
];
export const NAMESPACE_COLUMNS: readonly TableColumn[] = [
  { name: 'Status', type: 'string', value: (o) => field(o, 'status', 'phase') },
  AGE,
];
export const SERVICEACCOUNT_COLUMNS: readonly TableColumn[] = [
  { name: 'Secrets', type: 'integer', value: (o) => (Array.isArray(o['secrets']) ? o['secrets'].length : 0) },
  AGE,
];
export const LEASE_COLUMNS: readonly TableColumn[] = [
  { name: 'Holder', type: 'string', value: (o) => field(o, 'spec', 'holderIdentity') ?? '' },
  AGE,
];
export const CRD_COLUMNS: readonly TableColumn[] = [
  // Printed as a timestamp, not an age, as kube's CRD printer does.
  { name: 'Created At', type: 'string', value: (o) => field(o, 'metadata', 'creationTimestamp') },
];
/** Both Event APIs print alike (kube-apiserver converts events.k8s.io Events to the core shape for its printer). */
export const EVENT_COLUMNS: readonly TableColumn[] = [
  {
    name: 'Last Seen',
    type: 'date',
    value: (o) =>
      field(o, 'series', 'lastObservedTime') ??
      o['lastTimestamp'] ??
      o['deprecatedLastTimestamp'] ??
      o['eventTime'] ??
      field(o, 'metadata', 'creationTimestamp'),
  },
  { name: 'Type', type: 'string', value: (o) => o['type'] },
  { name: 'Reason', type: 'string', value: (o) => o['reason'] },
  {
    name: 'Object',
    type: 'string',
    value: (o) => {
      const ref = (o['regarding'] ?? o['involvedObject']) as { kind?: string; name?: string } | undefined;
      return ref ? `${(ref.kind ?? '').toLowerCase()}/${ref.name ?? ''}` : '';
    },
  },
  { name: 'Message', type: 'string', value: (o) => o['note'] ?? o['message'] },
];
