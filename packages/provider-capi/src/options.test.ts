/** CapiProvider's own options are checked at construction. */
import { describe, expect, it } from 'vitest';
import { CapiProvider } from './provider.js';

describe('CapiProvider options', () => {
  it('refuses a misspelt key and a wrong type, naming them', () => {
    expect(() => new CapiProvider({ nameSpace: 'default' } as never)).toThrow(
      'unknown option options.nameSpace (did you mean options.namespace?)',
    );
    expect(() => new CapiProvider({ isReady: true } as never)).toThrow(/options.isReady must be a function, got true/);
    expect(() => new CapiProvider({ namespace: 'default', isReady: () => true })).not.toThrow();
  });
});
