/** ApiExportProvider's options are checked at construction. */
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ApiExportProviderConfigError } from './errors.js';
import { ApiExportProvider } from './provider.js';

function exportConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'kcp', server: 'https://127.0.0.1:6443/clusters/root:provider' }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'c', cluster: 'kcp', user: 'u' }],
    currentContext: 'c',
  });
  return kc;
}

describe('ApiExportProvider options', () => {
  it('refuses a misspelt key, nested ones included, and a wrong type, naming them', () => {
    const base = { endpointSliceName: 'widgets', exportConfig: exportConfig() };
    const typo = () => new ApiExportProvider({ ...base, endpointStartTimeoutMS: 100 } as never);
    expect(typo).toThrow(ApiExportProviderConfigError);
    expect(typo).toThrow('unknown option options.endpointStartTimeoutMS (did you mean options.endpointStartTimeoutMs?)');
    expect(() => new ApiExportProvider({ ...base, retry: { initialMS: 5 } } as never)).toThrow(
      'unknown option options.retry.initialMS (did you mean options.retry.initialMs?)',
    );
    expect(() => new ApiExportProvider({ ...base, waitCacheTimeoutMs: -1 })).toThrow(
      /options.waitCacheTimeoutMs must be a positive number of milliseconds/,
    );
    expect(() => new ApiExportProvider(base)).not.toThrow();
  });
});
