/**
 * Test support: an in-memory store of Lease objects with the API server's write rules (create conflicts on an
 * existing name, update is resourceVersion-checked), and a per-replica Client view over it whose connection a test
 * can break. Integration tests run the elector against the envtest API server instead.
 */
import { ApiError, type StatusReason } from '../client/errors.js';
import type { Client } from '../client/types.js';
import type { KubeObject, KubeObjectLike, ObjectKey, ObjectKind } from '../object/types.js';

function statusError(code: number, reason: StatusReason, message: string): ApiError {
  return new ApiError(code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message });
}

export class LeaseStore {
  readonly objects = new Map<string, KubeObject>();
  writes = 0;
  private rv = 1;

  client(): LeaseClientView {
    return new LeaseClientView(this);
  }

  get(key: ObjectKey): KubeObject {
    const obj = this.objects.get(`${key.namespace}/${key.name}`);
    if (!obj) throw statusError(404, 'NotFound', `leases "${key.name}" not found`);
    return structuredClone(obj);
  }

  create(obj: KubeObject): KubeObject {
    const k = `${obj.metadata.namespace}/${obj.metadata.name}`;
    if (this.objects.has(k)) throw statusError(409, 'AlreadyExists', `leases "${obj.metadata.name}" already exists`);
    const stored = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: String(++this.rv) } };
    this.objects.set(k, stored);
    this.writes++;
    return structuredClone(stored);
  }

  update(obj: KubeObject): KubeObject {
    const k = `${obj.metadata.namespace}/${obj.metadata.name}`;
    const cur = this.objects.get(k);
    if (!cur) throw statusError(404, 'NotFound', 'not found');
    if (obj.metadata.resourceVersion !== cur.metadata.resourceVersion) {
      throw statusError(409, 'Conflict', 'the object has been modified');
    }
    const stored = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: String(++this.rv) } };
    this.objects.set(k, stored);
    this.writes++;
    return structuredClone(stored);
  }
}

/** One replica's connection to the store. */
export class LeaseClientView implements Pick<Client, 'get' | 'create' | 'update'> {
  /** When set, every request fails as if the network were down. */
  broken = false;
  /** Requests refused while broken. */
  failures = 0;
  constructor(private readonly store: LeaseStore) {}

  private check(): void {
    if (this.broken) {
      this.failures++;
      throw new Error('connect ECONNREFUSED');
    }
  }
  async get<T extends KubeObjectLike = KubeObject>(_kind: ObjectKind, key: ObjectKey): Promise<T> {
    await Promise.resolve();
    this.check();
    return this.store.get(key) as unknown as T;
  }
  async create<T extends KubeObjectLike>(obj: T): Promise<T> {
    await Promise.resolve();
    this.check();
    return this.store.create(obj as unknown as KubeObject) as unknown as T;
  }
  async update<T extends KubeObjectLike>(obj: T): Promise<T> {
    await Promise.resolve();
    this.check();
    return this.store.update(obj as unknown as KubeObject) as unknown as T;
  }
  asClient(): Client {
    return this as unknown as Client;
  }
}
