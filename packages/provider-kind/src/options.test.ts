/** KindProvider's own options are checked at construction. */
import { describe, expect, it } from 'vitest';
import { KindProvider } from './provider.js';

describe('KindProvider options', () => {
  it('refuses a misspelt key and a wrong type, naming them', () => {
    expect(() => new KindProvider({ namePrefx: 'dev-' } as never)).toThrow(
      'unknown option options.namePrefx (did you mean options.namePrefix?)',
    );
    expect(() => new KindProvider({ env: { KIND_EXPERIMENTAL_PROVIDER: 1 } } as never)).toThrow(
      /options.env.KIND_EXPERIMENTAL_PROVIDER must be a string, got 1/,
    );
    expect(() => new KindProvider({ namePrefix: 'dev-', binary: '/usr/local/bin/kind' })).not.toThrow();
  });
});
