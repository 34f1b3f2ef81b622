import { describe, expect, it } from 'vitest';
import { TestEnvironmentOptionsError } from './errors.js';
import { renderTokenFile } from './static-tokens.js';

describe('renderTokenFile', () => {
  it('writes token, user, uid and a quoted group list per line', () => {
    expect(
      renderTokenFile([
        { token: 't1', user: 'admin', groups: ['system:masters', 'ops'] },
        { token: 't2', user: 'alice', uid: 'u-2' },
      ]),
    ).toBe('t1,admin,admin,"system:masters,ops"\nt2,alice,u-2,""\n');
  });

  it.each([
    ['a token with a comma', { token: 'se,cret', user: 'bob' }],
    ['an empty token', { token: '', user: 'bob' }],
    ['a user with a newline', { token: 'secret', user: 'bo\nb' }],
    ['a group with a quote', { token: 'secret', user: 'bob', groups: ['a"b'] }],
  ])('rejects %s without echoing the token', (_, token) => {
    let err: unknown;
    try {
      renderTokenFile([token]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TestEnvironmentOptionsError);
    expect((err as Error).message).not.toContain('secret');
    expect((err as Error).message).not.toContain('se,cret');
  });

  it('rejects the same token given twice', () => {
    expect(() =>
      renderTokenFile([
        { token: 'x', user: 'a' },
        { token: 'x', user: 'b' },
      ]),
    ).toThrow(/given twice/);
  });
});
