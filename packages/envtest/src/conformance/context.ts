/** Shared state of one conformance run: the backend, an admin client, and unique namespaces per case. */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Backend } from './backend.js';
import { KubeHttpClient } from './http-client.js';

export interface SuiteContext {
  readonly backend: Backend;
  readonly client: KubeHttpClient;
  /** Creates a fresh namespace and returns its name. */
  namespace(prefix?: string): Promise<string>;
  /** A unique DNS-1123 name. */
  unique(prefix: string): string;
}

export class LazyContext implements SuiteContext {
  private current: { backend: Backend; client: KubeHttpClient } | undefined;

  async init(start: () => Promise<Backend>): Promise<void> {
    const backend = await start();
    this.current = { backend, client: new KubeHttpClient(backend.kubeconfig) };
  }

  async dispose(): Promise<void> {
    this.current?.client.close();
    await this.current?.backend.close();
    this.current = undefined;
  }

  get backend(): Backend {
    if (!this.current) throw new Error('conformance backend not started');
    return this.current.backend;
  }

  get client(): KubeHttpClient {
    if (!this.current) throw new Error('conformance backend not started');
    return this.current.client;
  }

  unique(prefix: string): string {
    return `${prefix}-${randomBytes(4).toString('hex')}`;
  }

  async namespace(prefix = 'conf'): Promise<string> {
    const name = this.unique(prefix);
    const res = await this.client.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    expect(res.status).toBe(201);
    return name;
  }
}
