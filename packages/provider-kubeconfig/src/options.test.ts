/** The providers' own options are checked at construction: a misspelt key is refused, naming the key it is a typo of. */
import { ProviderConfigError } from '@multicluster-runtime/core/providers';
import { describe, expect, it } from 'vitest';
import { KubeconfigFileProvider } from './file-provider.js';
import { KubeconfigSecretProvider } from './secret-provider.js';

describe('options of the kubeconfig providers', () => {
  it('a misspelt key is refused with the key it is a typo of (it used to select every Secret silently)', () => {
    const make = () => new KubeconfigSecretProvider({ namespace: 'fleet', labelSelecter: 'fleet=yes' } as never);
    expect(make).toThrow(ProviderConfigError);
    expect(make).toThrow('unknown option options.labelSelecter (did you mean options.labelSelector?)');
    expect(() => new KubeconfigFileProvider({ paths: ['fleet/*.kubeconfig'], debounceMS: 5 } as never)).toThrow(
      'unknown option options.debounceMS (did you mean options.debounceMs?)',
    );
  });

  it('a wrong type of an own option is refused too; valid options still work', () => {
    expect(() => new KubeconfigSecretProvider({ namespace: 'fleet', labelSelector: 42 } as never)).toThrow(
      /options.labelSelector must be a string or an object whose values are each a string, got 42/,
    );
    expect(() => new KubeconfigSecretProvider({ namespace: 'fleet', labelSelector: { fleet: 'yes' }, probeTimeoutMs: 500 })).not.toThrow();
  });
});
