/**
 * Content negotiation for reads: plain JSON objects, PartialObjectMetadata(List) (metadata-only clients), or a
 * meta.k8s.io Table (what `kubectl get` asks for, with CRD printer columns). Unacceptable Accept headers are 406.
 */
import { humanDuration } from '../api/human-duration.js';
import { evaluateJsonPath, parseJsonPath } from '../api/json-path.js';
import type { PrinterColumn, ResourceType } from '../api/resource-type.js';
import { StatusError } from '../api/status-error.js';

export type Representation = { as: 'object' } | { as: 'metadata'; version: string } | { as: 'table'; version: string };

const OBJECT: Representation = { as: 'object' };

/** Picks the first acceptable media range (clients list them in preference order). */
export function negotiate(accept: string | undefined, list: boolean): Representation {
  if (!accept || accept.trim() === '') return OBJECT;
  for (const range of accept.split(',')) {
    const [mediaType = '', ...rawParams] = range.split(';').map((p) => p.trim());
    const params = new Map(rawParams.map((p) => p.split('=').map((x) => x.trim()) as [string, string]));
    if (!['application/json', 'application/*', '*/*'].includes(mediaType.toLowerCase())) continue;
    const as = params.get('as');
    if (as === undefined) return OBJECT;
    const version = params.get('v') ?? '';
    if (params.get('g') !== 'meta.k8s.io' || !['v1', 'v1beta1'].includes(version)) continue;
    if (as === 'Table') return { as: 'table', version };
    if (as === (list ? 'PartialObjectMetadataList' : 'PartialObjectMetadata')) return { as: 'metadata', version };
  }
  throw new StatusError(
    406,
    'NotAcceptable',
    'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
  );
}

export function contentTypeOf(rep: Representation, list: boolean): string {
  if (rep.as === 'object') return 'application/json';
  const as = rep.as === 'table' ? 'Table' : list ? 'PartialObjectMetadataList' : 'PartialObjectMetadata';
  return `application/json;as=${as};g=meta.k8s.io;v=${rep.version}`;
}

type Obj = Record<string, unknown> & { metadata?: Record<string, unknown> };

function partial(obj: Obj, version: string): Record<string, unknown> {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata ?? {} };
}

/** A single object (already presented) in the negotiated form. */
export function renderObject(rep: Representation, obj: Obj, type: ResourceType, version: string): unknown {
  if (rep.as === 'metadata') return partial(obj, rep.version);
  if (rep.as === 'table') return table(rep.version, type, version, [obj], {});
  return obj;
}

/** A list (items already presented) in the negotiated form; `list` is the plain JSON list. */
export function renderList(
  rep: Representation,
  list: { metadata: Record<string, unknown>; items: Obj[] } & Record<string, unknown>,
  type: ResourceType,
  version: string,
): unknown {
  if (rep.as === 'metadata')
    return {
      kind: 'PartialObjectMetadataList',
      apiVersion: `meta.k8s.io/${rep.version}`,
      metadata: list.metadata,
      items: list.items.map((i) => partial(i, rep.version)),
    };
  if (rep.as === 'table') return table(rep.version, type, version, list.items, list.metadata);
  return list;
}

const NAME_COLUMN = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  priority: 0,
};
const AGE_COLUMN: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
};

/** A column as the table renderer sees it: built-in columns compute, CRD columns evaluate a JSONPath. */
interface Column {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  value(obj: Obj): unknown;
}

function fromPrinterColumn(c: PrinterColumn): Column {
  const steps = parseJsonPath(c.jsonPath);
  return { ...c, value: (obj) => (steps ? evaluateJsonPath(obj, steps) : undefined) };
}

function columnsOf(type: ResourceType, version: string): Column[] {
  if (type.tableColumns) return [...type.tableColumns];
  const custom = type.printerColumns?.[version];
  return (custom && custom.length > 0 ? custom : [AGE_COLUMN]).map(fromPrinterColumn);
}

function table(tableVersion: string, type: ResourceType, version: string, items: Obj[], listMeta: Record<string, unknown>): unknown {
  const columns = columnsOf(type, version);
  const now = Date.now();
  const cell = (obj: Obj, c: Column): unknown => {
    const value = c.value(obj);
    if (value === undefined || value === null) return null;
    if (c.type === 'date' && typeof value === 'string') return humanDuration(now - Date.parse(value));
    return typeof value === 'object' ? JSON.stringify(value) : value;
  };
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${tableVersion}`,
    metadata: listMeta,
    columnDefinitions: [
      NAME_COLUMN,
      ...columns.map((c) => ({
        name: c.name,
        type: c.type === 'date' ? 'string' : c.type,
        format: c.format ?? '',
        description: c.description ?? '',
        priority: c.priority ?? 0,
      })),
    ],
    rows: items.map((obj) => ({
      cells: [obj.metadata?.['name'] ?? '', ...columns.map((c) => cell(obj, c))],
      object: partial(obj, tableVersion),
    })),
  };
}
