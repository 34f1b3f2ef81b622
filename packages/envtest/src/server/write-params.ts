/** Query options of write requests: dryRun, fieldManager (or the User-Agent), fieldValidation, force, DeleteOptions. */
import type { IncomingMessage } from 'node:http';
import { notSupported } from '../api/field-error.js';
import { badRequest, invalid } from '../api/status-error.js';
import { valueText } from '../api/value-text.js';
import { decodeJson, requireObject } from './body.js';
import type { DeleteOptions } from './ops/delete.js';
import type { PatchOptions } from './ops/patch.js';
import type { FieldValidation } from './ops/write-options.js';
import { queryBool, queryOptionalBool } from './query.js';

export function parseWriteParams(
  req: IncomingMessage,
  params: URLSearchParams,
  kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions',
): PatchOptions {
  const dryRunValues = params.getAll('dryRun');
  for (const v of dryRunValues) if (v !== 'All') throw invalid('meta.k8s.io', kind, '', [notSupported('dryRun', v, ['All'])]);
  const validation = params.get('fieldValidation') ?? '';
  if (!['', 'Ignore', 'Warn', 'Strict'].includes(validation))
    throw invalid('meta.k8s.io', kind, '', [notSupported('fieldValidation', validation, ['Ignore', 'Warn', 'Strict'])]);
  const ua = req.headers['user-agent'];
  const explicitManager = params.get('fieldManager') || undefined;
  const fieldManager = explicitManager ?? (typeof ua === 'string' && ua ? ua.split('/')[0] : undefined);
  return {
    dryRun: dryRunValues.length > 0,
    fieldManager,
    explicitFieldManager: explicitManager !== undefined,
    force: queryOptionalBool(params, 'force'),
    fieldValidation: (validation || 'Warn') as FieldValidation,
    warnings: [],
  };
}

/** DeleteOptions from the body (if any) merged over the query parameters. */
export function parseDeleteOptions(params: URLSearchParams, body: Buffer): DeleteOptions {
  const opts: {
    dryRun: boolean;
    propagationPolicy?: string;
    orphanDependents?: boolean;
    preconditions?: { uid?: string; resourceVersion?: string };
  } = {
    dryRun: params.getAll('dryRun').length > 0,
  };
  for (const v of params.getAll('dryRun'))
    if (v !== 'All') throw invalid('meta.k8s.io', 'DeleteOptions', '', [notSupported('dryRun', v, ['All'])]);
  const policy = params.get('propagationPolicy');
  if (policy) opts.propagationPolicy = policy;
  if (params.has('orphanDependents')) opts.orphanDependents = queryBool(params, 'orphanDependents');
  if (body.length > 0 && body.toString('utf8').trim() !== '') {
    const b = requireObject(decodeJson(body));
    if (b['kind'] !== undefined && b['kind'] !== 'DeleteOptions')
      throw badRequest(`expected DeleteOptions in the body, got ${valueText(b['kind'])}`);
    if (Array.isArray(b['dryRun']) && b['dryRun'].length > 0) opts.dryRun = true;
    if (typeof b['propagationPolicy'] === 'string') opts.propagationPolicy = b['propagationPolicy'];
    if (typeof b['orphanDependents'] === 'boolean') opts.orphanDependents = b['orphanDependents'];
    const pre = b['preconditions'];
    if (pre && typeof pre === 'object') {
      const p = pre as Record<string, unknown>;
      opts.preconditions = {
        ...(typeof p['uid'] === 'string' ? { uid: p['uid'] } : {}),
        ...(typeof p['resourceVersion'] === 'string' ? { resourceVersion: p['resourceVersion'] } : {}),
      };
    }
  }
  return opts;
}
