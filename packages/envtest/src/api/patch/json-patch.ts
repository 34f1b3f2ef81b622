/** RFC 6902 JSON patch (add, remove, replace, move, copy, test) with RFC 6901 pointers. */
import { cloneJson } from '@multicluster-runtime/apimachinery';
import { isDeepStrictEqual } from 'node:util';

/** The patch cannot be applied to this document (bad op, missing path, failed test): the request is invalid. */
export class JsonPatchError extends Error {
  override name = 'JsonPatchError';
}

interface Operation {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

export function applyJsonPatch(doc: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) throw new JsonPatchError('json patch must be an array of operations');
  let root = cloneJson(doc);
  for (const raw of patch as unknown[]) {
    if (typeof raw !== 'object' || raw === null) throw new JsonPatchError('each json patch operation must be an object');
    const op = raw as Operation;
    if (typeof op.path !== 'string') throw new JsonPatchError(`operation "${String(op.op)}" is missing the "path" field`);
    switch (op.op) {
      case 'add':
        requireValue(op);
        root = add(root, op.path, cloneJson(op.value));
        break;
      case 'remove':
        root = remove(root, op.path);
        break;
      case 'replace':
        requireValue(op);
        get(root, op.path);
        root = add(remove(root, op.path), op.path, cloneJson(op.value));
        break;
      case 'move': {
        const value = get(root, requireFrom(op));
        root = add(remove(root, op.from!), op.path, value);
        break;
      }
      case 'copy':
        root = add(root, op.path, cloneJson(get(root, requireFrom(op))));
        break;
      case 'test':
        requireValue(op);
        if (!isDeepStrictEqual(get(root, op.path), op.value)) throw new JsonPatchError(`testing value ${op.path} failed: test failed`);
        break;
      default:
        throw new JsonPatchError(`unexpected kind of operation: ${JSON.stringify(op.op)}`);
    }
  }
  return root;
}

function requireValue(op: Operation): void {
  if (!('value' in op)) throw new JsonPatchError(`operation "${op.op}" on ${op.path} is missing the "value" field`);
}

function requireFrom(op: Operation): string {
  if (typeof op.from !== 'string') throw new JsonPatchError(`operation "${op.op}" is missing the "from" field`);
  return op.from;
}

function parsePointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new JsonPatchError(`invalid JSON pointer: ${JSON.stringify(path)}`);
  return path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function container(root: unknown, tokens: string[], path: string): unknown {
  let cur = root;
  for (const t of tokens) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(cur, t, path, false)];
    else if (typeof cur === 'object' && cur !== null && Object.prototype.hasOwnProperty.call(cur, t))
      cur = (cur as Record<string, unknown>)[t];
    else throw new JsonPatchError(`doc is missing path: ${JSON.stringify(path)}: missing value`);
  }
  return cur;
}

function arrayIndex(arr: unknown[], token: string, path: string, forAdd: boolean): number {
  if (forAdd && token === '-') return arr.length;
  if (!/^(0|[1-9]\d*)$/.test(token)) throw new JsonPatchError(`invalid array index ${JSON.stringify(token)} in ${path}`);
  const i = Number(token);
  if (i > arr.length || (!forAdd && i === arr.length)) throw new JsonPatchError(`unable to access invalid index: ${i} in ${path}`);
  return i;
}

function get(root: unknown, path: string): unknown {
  return container(root, parsePointer(path), path);
}

function add(root: unknown, path: string, value: unknown): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return value;
  const parent = container(root, tokens.slice(0, -1), path);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, path, true), 0, value);
  else if (typeof parent === 'object' && parent !== null) (parent as Record<string, unknown>)[last] = value;
  else throw new JsonPatchError(`doc is missing path: ${JSON.stringify(path)}: missing value`);
  return root;
}

function remove(root: unknown, path: string): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return undefined;
  const parent = container(root, tokens.slice(0, -1), path);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, path, false), 1);
  else if (typeof parent === 'object' && parent !== null && Object.prototype.hasOwnProperty.call(parent, last))
    delete (parent as Record<string, unknown>)[last];
  else throw new JsonPatchError(`unable to remove nonexistent key: ${last}: missing value`);
  return root;
}
