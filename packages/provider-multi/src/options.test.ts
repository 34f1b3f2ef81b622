/** MultiProvider's options are checked at construction. */
import { describe, expect, it } from 'vitest';
import { MultiProviderError } from './errors.js';
import { MultiProvider } from './multi-provider.js';

describe('MultiProvider options', () => {
  it('refuses a misspelt key, naming the key it is a typo of', () => {
    const make = () => new MultiProvider({ seperator: '/' } as never);
    expect(make).toThrow(MultiProviderError);
    expect(make).toThrow('unknown option options.seperator (did you mean options.separator?)');
    expect(() => new MultiProvider({ separator: '/' })).not.toThrow();
  });
});
