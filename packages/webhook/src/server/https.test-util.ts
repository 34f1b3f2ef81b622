/** Test helpers: serving certificates on disk, and raw HTTPS requests to the webhook server. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request, type Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { createCertificateAuthority, issueServerCertificate, type CertificateAuthority } from '@multicluster-runtime/envtest';
import { ClusterNotFoundError, type Cluster } from '@multicluster-runtime/core';
import type { AdmissionRequest } from '../admission/types.js';
import type { ClusterLookup } from './webhook-server.js';

export interface CertFiles {
  dir: string;
  ca: CertificateAuthority;
  certFile: string;
  keyFile: string;
  caFile: string;
  cleanup(): Promise<void>;
}

export async function certFiles(): Promise<CertFiles> {
  const dir = await mkdtemp(join(tmpdir(), 'webhook-certs-'));
  const ca = await createCertificateAuthority({ commonName: 'webhook-test-ca' });
  const pair = await issueServerCertificate(ca, { commonName: 'webhook' });
  const files = { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key'), caFile: join(dir, 'ca.crt') };
  await writeFile(files.certFile, pair.certPem);
  await writeFile(files.keyFile, pair.keyPem);
  await writeFile(files.caFile, ca.certPem);
  return { dir, ca, ...files, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json(): Record<string, unknown>;
}

export interface PostOptions {
  ca: string;
  method?: string;
  headers?: Record<string, string>;
  agent?: Agent;
  /** Send the body in chunks without Content-Length. */
  chunked?: boolean;
  minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  maxVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
}

export function send(url: string, body: string | Buffer | undefined, o: PostOptions): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(body);
    const req = request(
      url,
      {
        method: o.method ?? 'POST',
        ca: o.ca,
        agent: o.agent ?? false,
        ...(o.minVersion ? { minVersion: o.minVersion } : {}),
        ...(o.maxVersion ? { maxVersion: o.maxVersion } : {}),
        headers: {
          'Content-Type': 'application/json',
          ...(data && !o.chunked ? { 'Content-Length': String(data.length) } : {}),
          ...o.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) as Record<string, unknown> });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (data && o.chunked) {
      for (let i = 0; i < data.length; i += 64 * 1024) req.write(data.subarray(i, i + 64 * 1024));
      req.end();
    } else req.end(data);
  });
}

/** An AdmissionReview v1 for a ConfigMap write. */
export function review(request: Partial<AdmissionRequest> = {}): Record<string, unknown> {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: randomUUID(),
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      operation: 'CREATE',
      namespace: 'default',
      name: 'cm',
      userInfo: { username: 'alice', groups: ['system:authenticated'] },
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: { a: '1' } },
      ...request,
    },
  };
}

/** A manager stand-in that knows a fixed set of members (the server only calls getCluster). */
export function fixedClusters(...names: string[]): ClusterLookup & { clusters: Map<string, Cluster> } {
  const clusters = new Map(names.map((n) => [n, { name: n } as Cluster]));
  return {
    clusters,
    getCluster: (name) => {
      const c = clusters.get(name);
      return c ? Promise.resolve(c) : Promise.reject(new ClusterNotFoundError(name));
    },
  };
}
