import { describe, expect, test } from 'vitest';
import { silentLogger } from '@multicluster-runtime/core';
import { noopMetrics } from '@multicluster-runtime/core/metrics';
import { ProviderConfigError } from '@multicluster-runtime/core/providers';
import { MiloProvider } from './index.js';
import { conditionIsTrue, isProjectName } from './resources.js';

const withConditions = (conditions: unknown) => ({ metadata: { name: 'p' }, status: { conditions } });

describe('conditionIsTrue', () => {
  test('is true only for the named condition with status "True"', () => {
    expect(conditionIsTrue(withConditions([{ type: 'Ready', status: 'True' }]), 'Ready')).toBe(true);
    expect(conditionIsTrue(withConditions([{ type: 'Ready', status: 'Unknown' }]), 'Ready')).toBe(false);
    expect(conditionIsTrue(withConditions([{ type: 'ControlPlaneReady', status: 'True' }]), 'Ready')).toBe(false);
  });

  test('counts a missing or malformed list as not ready', () => {
    expect(conditionIsTrue({ metadata: {} }, 'Ready')).toBe(false);
    expect(conditionIsTrue(withConditions({ Ready: 'True' }), 'Ready')).toBe(false);
    expect(conditionIsTrue(withConditions([null, 'Ready', { type: 'Ready', status: true }]), 'Ready')).toBe(false);
  });
});

test('isProjectName accepts DNS-1123 subdomains only', () => {
  expect(isProjectName('mc-test-project-1')).toBe(true);
  expect(isProjectName('a.b')).toBe(true);
  for (const bad of ['', 'Upper', 'a/b', '..', '-a', 'a_b', 'x'.repeat(254)]) expect(isProjectName(bad)).toBe(false);
});

describe('MiloProvider options', () => {
  test('unusable options fail construction with ProviderConfigError', () => {
    expect(() => new MiloProvider({ mode: 'cluster' as never })).toThrow(ProviderConfigError);
    expect(() => new MiloProvider({ internalAddress: 'https://{name}.svc' })).toThrow(/projectControlPlane/);
    expect(() => new MiloProvider({ mode: 'projectControlPlane', internalAddress: 'https://fixed.svc' })).toThrow(/\{name\}/);
    expect(() => new MiloProvider({ labelSelector: 'a in (' })).toThrow(/labelSelector/);
    expect(() => new MiloProvider({ retry: { initialMs: -1 } })).toThrow(ProviderConfigError);
  });

  test('defaults to project mode', () => {
    expect(new MiloProvider().mode).toBe('project');
    expect(new MiloProvider({ mode: 'projectControlPlane' }).mode).toBe('projectControlPlane');
  });

  test('start without a manager or host cluster says what is missing', async () => {
    const provider = new MiloProvider();
    await expect(
      provider.start(new AbortController().signal, {
        aware: { engage: () => Promise.resolve() },
        logger: silentLogger,
        metrics: noopMetrics,
      }),
    ).rejects.toThrow(/hostCluster/);
  });
});
