import { ApiError, TransportError } from '../../client/errors.js';
import { newCluster } from '../../cluster/cluster.js';
import { loadUntrustedKubeconfig } from '../../kubeconfig/untrusted.js';
import { CacheSyncTimeoutError, ClusterEngageFailedError, ClusterIndexFailedError } from '../errors.js';
import { startApiServer } from '@multicluster-runtime/envtest';
import { expect, test } from 'vitest';
import { ProbeTimeoutError, classifyFailure, describeError, probeCluster } from './probe.js';

const status = (code: number, reason: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure' as const,
  message: reason,
  reason,
  code,
});

test.each([
  ['401', new ApiError(401, status(401, 'Unauthorized'), { method: 'GET', path: '/api' }), 'unauthorized', true],
  ['403', new ApiError(403, status(403, 'Forbidden')), 'unauthorized', true],
  ['503', new ApiError(503, status(503, 'ServiceUnavailable')), 'unreachable', true],
  ['404 on discovery', new ApiError(404, status(404, 'NotFound')), 'failed', true],
  ['refused connection', new TransportError('connect', 'connect ECONNREFUSED 127.0.0.1:1'), 'unreachable', true],
  ['probe timeout', new ProbeTimeoutError(10), 'unreachable', true],
  ['cache sync timeout', new CacheSyncTimeoutError('c', 10), 'failed', true],
  ['engage refused', new ClusterEngageFailedError('c', new Error('no')), 'failed', true],
  ['index conflict', new ClusterIndexFailedError('c', 'f', new Error('conflict')), 'failed', false],
  ['a thrown string', 'boom', 'failed', true],
])('classifies %s', (_what, err, state, retry) => {
  const verdict = classifyFailure(err);
  expect(verdict.state).toBe(state);
  expect(verdict.retry).toBe(retry);
  expect(verdict.reason.length).toBeGreaterThan(0);
});

test('descriptions are one bounded line', () => {
  expect(describeError(new Error(`first line\nsecond line`))).toBe('first line');
  expect(describeError(new Error('x'.repeat(1000)))).toHaveLength(301);
});

test('the probe answers for a live server and gives up on a slow one in time', async () => {
  const server = await startApiServer();
  const cluster = newCluster(loadUntrustedKubeconfig(server.kubeconfig()));
  try {
    await probeCluster(cluster, new AbortController().signal, 5_000);
    server.faults.setLatency(3_000);
    cluster.restMapper.reset();
    const started = Date.now();
    await expect(probeCluster(cluster, new AbortController().signal, 100)).rejects.toBeInstanceOf(ProbeTimeoutError);
    expect(Date.now() - started).toBeLessThan(2_500);
    // An abort by the caller is not reported as a timeout.
    const ac = new AbortController();
    const probing = probeCluster(cluster, ac.signal, 5_000);
    ac.abort();
    const err = await probing.catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(ProbeTimeoutError);
    expect(err).toBeInstanceOf(Error);
  } finally {
    server.faults.setLatency(0);
    await cluster.close();
    await server.close();
  }
});
