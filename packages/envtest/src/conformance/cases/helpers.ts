/** Small builders and assertions shared by the conformance cases. */
import { expect } from 'vitest';
import type { HttpResponse } from '../http-client.js';

export function configMap(name: string, data: Record<string, string> = {}, labels?: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data };
}

export function cmPath(ns: string, name?: string): string {
  return `/api/v1/namespaces/${ns}/configmaps${name === undefined ? '' : `/${name}`}`;
}

/** A Status failure with this code and reason (and, when given, this exact message). */
export function expectStatus(res: HttpResponse, code: number, reason: string, message?: string | RegExp): void {
  expect({ status: res.status, kind: res.body?.kind, code: res.body?.code, reason: res.body?.reason }, res.text).toEqual({
    status: code,
    kind: 'Status',
    code,
    reason,
  });
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  if (typeof message === 'string') expect(res.body.message).toBe(message);
  else if (message) expect(res.body.message).toMatch(message);
}

export function rvOf(obj: { metadata: { resourceVersion: string } }): number {
  return Number(obj.metadata.resourceVersion);
}
