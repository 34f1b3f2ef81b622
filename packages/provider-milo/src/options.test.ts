/** MiloProvider's own options are checked at construction. */
import { describe, expect, it } from 'vitest';
import { MiloProvider } from './provider.js';

describe('MiloProvider options', () => {
  it('refuses a misspelt key, naming the key it is a typo of', () => {
    expect(() => new MiloProvider({ internalAdress: 'https://{project}.internal' } as never)).toThrow(
      'unknown option options.internalAdress (did you mean options.internalAddress?)',
    );
  });
});
